import type { ValidationIssue, WebhookVerificationError } from '../errors.js';
import {
  acceptedValues,
  checkVerifyOptions,
  findHeader,
  missingHeader,
  parseDelivery,
  type WebhookHeaders,
  wrongHeader,
} from '../internal/webhook-delivery.js';
import { type Answer, answer, refusal } from './answer.js';
import type { DeliveryStore } from './delivery-store.js';
import { MemoryDeliveryStore } from './memory-store.js';
import type { OnDelivery, WebhookReceiverOptions } from './options.js';
import { BodyProblem, type BodyRead, tooLargeProblem } from './read-body.js';
import { secretCheck } from './secret.js';

/** A request as every adapter hands it to the receiver. */
export interface IncomingDelivery {
  method: string | undefined;
  headers: WebhookHeaders;
  /** Reads the raw body, at most `max` bytes (only called once the header is checked). */
  read(max: number): Promise<BodyRead>;
}

/** The one receive path every adapter shares: request in, answer out; it never throws. */
export type Receiver = (incoming: IncomingDelivery) => Promise<Answer>;

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const DEFAULT_LEASE_MS = 5 * 60 * 1000;

/**
 * Checks the options once (a receiver that could accept every request, or none, fails when it
 * is created, not on the first delivery) and returns the receive path.
 * @throws ClaimsValidationError naming every bad option.
 */
export function createReceiver<T>(options: WebhookReceiverOptions<T>, onDelivery: OnDelivery<T>): Receiver {
  checkVerifyOptions(options, receiverProblems(options, onDelivery));
  const { headerName, schema, deduplicate } = options;
  const max = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const matches = secretCheck([...acceptedValues(options)]);
  const report = options.onError ?? ((error: unknown) => console.error('claims webhook receiver:', error));
  const dedupe = deduplicate && {
    key: deduplicate.key,
    store: deduplicate.store ?? new MemoryDeliveryStore(),
    leaseMs: deduplicate.leaseMs ?? DEFAULT_LEASE_MS,
  };

  const failed = (error: unknown, message: string): Answer => {
    safely(report, error);
    return refusal(500, message);
  };

  async function receive(incoming: IncomingDelivery): Promise<Answer> {
    if (incoming.method?.toUpperCase() !== 'POST') {
      return refusal(405, 'only POST is accepted', { allow: 'POST' });
    }
    const received = findHeader(incoming.headers, headerName);
    if (received === undefined) return refusal(401, missingHeader(headerName).message);
    if (!(await matches(received))) return refusal(401, wrongHeader(headerName).message);

    const declared = Number(findHeader(incoming.headers, 'content-length'));
    const body = declared > max ? tooLargeProblem(max) : await incoming.read(max);
    if (body instanceof BodyProblem) {
      if (body.status === 500) safely(report, new Error(body.message));
      return refusal(body.status, body.message);
    }
    let payload: T;
    try {
      payload = parseDelivery(body, schema);
    } catch (error) {
      const { message, issues } = error as WebhookVerificationError;
      return answer(400, issues.length > 0 ? { error: message, issues } : { error: message });
    }

    // The key this request holds in the store, when deduplicating.
    let held: { store: DeliveryStore; key: string } | undefined;
    if (dedupe) {
      let key: unknown;
      try {
        key = dedupe.key(payload);
      } catch (error) {
        return failed(error, 'deduplicate.key failed on this payload');
      }
      if (typeof key !== 'string' || key === '') {
        return failed(
          new TypeError(`deduplicate.key returned ${key === '' ? 'an empty string' : typeof key}`),
          'deduplicate.key gave no key for this payload',
        );
      }
      if (!(await dedupe.store.claim(key, dedupe.leaseMs))) {
        return (await dedupe.store.isDone?.(key))
          ? answer(200, { received: true, duplicate: true })
          : refusal(409, 'a copy of this delivery is being processed; send it again later');
      }
      held = { store: dedupe.store, key };
    }

    try {
      await onDelivery(payload, { headers: withoutHeader(incoming.headers, headerName), key: held?.key });
    } catch (error) {
      if (held) await held.store.release(held.key).catch(report);
      return failed(error, 'the delivery handler failed');
    }
    // The handler ran: a store failure now must not make the sender send it again.
    if (held) await held.store.done(held.key).catch(report);
    return answer(200, { received: true });
  }

  return async (incoming) => {
    try {
      return await receive(incoming);
    } catch (error) {
      // A store that failed to claim, or a reader that threw: the sender may try again.
      return failed(error, 'the receiver failed');
    }
  };
}

function safely(report: (error: unknown) => void, error: unknown): void {
  try {
    report(error);
  } catch {
    // onError must not turn an answer into a crash.
  }
}

function receiverProblems(options: unknown, onDelivery: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (typeof onDelivery !== 'function') {
    issues.push({ path: 'onDelivery', message: 'must be a function (payload, context) => …' });
  }
  const { deduplicate, onError } = (options ?? {}) as WebhookReceiverOptions<unknown>;
  if (onError !== undefined && typeof onError !== 'function') {
    issues.push({ path: 'onError', message: 'must be a function (error) => void' });
  }
  if (deduplicate === undefined) return issues;
  if (typeof deduplicate?.key !== 'function') {
    issues.push({ path: 'deduplicate.key', message: 'must be a function (payload) => string' });
  }
  const { store, leaseMs } = deduplicate ?? {};
  const missing = ['claim', 'release', 'done'].filter(
    (name) => typeof (store as unknown as Record<string, unknown> | undefined)?.[name] !== 'function',
  );
  if (store !== undefined && missing.length > 0) {
    issues.push({ path: 'deduplicate.store', message: `must have ${missing.join(', ')} (a DeliveryStore)` });
  }
  if (leaseMs !== undefined && !(Number.isSafeInteger(leaseMs) && leaseMs > 0)) {
    issues.push({ path: 'deduplicate.leaseMs', message: 'must be a positive whole number of milliseconds' });
  }
  return issues;
}

/** The request's headers as `Headers`, without the secret one. */
function withoutHeader(headers: WebhookHeaders, name: string): Headers {
  const out = new Headers();
  const entries: Iterable<[string, unknown]> =
    typeof (headers as Headers).get === 'function' ? (headers as Headers) : Object.entries(headers);
  for (const [key, value] of entries) {
    if (key.toLowerCase() === name.toLowerCase() || value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) {
      try {
        out.append(key, String(one));
      } catch {
        // A header Headers refuses (a name node:http accepted): the handler does without it.
      }
    }
  }
  return out;
}
