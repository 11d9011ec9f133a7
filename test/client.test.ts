import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ClaimsClient, ClaimsValidationError, VERSION } from '../src/index.js';

describe('ClaimsClient options', () => {
  it('exposes the six sub-clients', () => {
    const client = new ClaimsClient({ baseUrl: 'https://claims.example.com/api/', accessToken: 't' });
    for (const name of [
      'incidents',
      'events',
      'attachments',
      'metadata',
      'webhooks',
      'subscriptions',
    ] as const) {
      expect(client[name]).toBeDefined();
    }
  });

  it.each([
    [{ baseUrl: 'claims.example.com', accessToken: 't' }, 'baseUrl'],
    [{ baseUrl: 'ftp://claims.example.com', accessToken: 't' }, 'baseUrl'],
    [{ baseUrl: 'https://claims.example.com/api?key=1', accessToken: 't' }, 'baseUrl'],
    [{ baseUrl: 'https://claims.example.com', accessToken: '' }, 'accessToken'],
    [{ baseUrl: 'https://claims.example.com', accessToken: 't', timeoutMs: -1 }, 'timeoutMs'],
    [{ baseUrl: 'https://claims.example.com', accessToken: 't', maxRetries: 1.5 }, 'maxRetries'],
    [{ baseUrl: 'https://claims.example.com', accessToken: 't', timeoutMs: 0 }, 'timeoutMs'],
    [
      { baseUrl: 'https://claims.example.com', accessToken: 't', metadataCacheTtlMs: Number.NaN },
      'metadataCacheTtlMs',
    ],
    [{ baseUrl: 'https://claims.example.com', accessToken: 'tok\nen' }, 'accessToken'],
    [{ baseUrl: 'https://claims.example.com', accessToken: 't', maxResponseBytes: 0 }, 'maxResponseBytes'],
    [{ baseUrl: 'https://claims.example.com', accessToken: 't', maxResponseBytes: 1.5 }, 'maxResponseBytes'],
    [{ baseUrl: 'https://claims.example.com', accessToken: 't', headers: { 'x-a': 'b\nc' } }, 'headers.x-a'],
    [{ baseUrl: 'https://claims.example.com', accessToken: 't', userAgent: 'a\nb' }, 'userAgent'],
  ])('rejects %j naming %s', (options, path) => {
    const error = (() => {
      try {
        new ClaimsClient(options);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect((error as ClaimsValidationError).issues.map((i) => i.path)).toEqual([path]);
    expect((error as Error).message).toMatch(/^Invalid ClaimsClient options: /);
  });

  it('keeps VERSION equal to package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(VERSION).toBe(pkg.version);
  });
});
