import { afterAll, expect, it, vi } from 'vitest';

// A tracer provider looks registered (the API's global is there), but `@opentelemetry/api`
// cannot be loaded from the SDK (a bundle that left it out): calls must run, untraced.
const KEY = Symbol.for('opentelemetry.js.api.1');
const globals = globalThis as Record<symbol, unknown>;
afterAll(() => {
  delete globals[KEY];
});

it('a registered provider without a loadable @opentelemetry/api: the call runs untraced, and later calls skip the check', async () => {
  globals[KEY] = { version: '1.9.0', trace: {} };
  vi.doMock('@opentelemetry/api', () => {
    throw new Error("Cannot find package '@opentelemetry/api'");
  });
  const { traceCall } = await import('../../src/telemetry/call-span.js');
  const first = traceCall('GET', '/metadata/programmes');
  expect(first).toBeTypeOf('function');
  const seen: unknown[] = [];
  await expect(
    first?.(async (span) => {
      seen.push(span);
      return 'answer';
    }),
  ).resolves.toBe('answer');
  expect(seen).toEqual([undefined]);
  expect(traceCall('GET', '/metadata/programmes')).toBeUndefined();
});
