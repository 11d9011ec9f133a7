import { describe, expect, it } from 'vitest';
import { ClaimsValidationError } from '../../src/errors.js';
import { path } from '../../src/internal/path.js';

describe('path', () => {
  it('URL-encodes every value so an id cannot change the path', () => {
    expect(path`/incidents/${'a/b?c#d %'}/events`).toBe('/incidents/a%2Fb%3Fc%23d%20%25/events');
    expect(path`/webhooks/${7}/subscriptions/${'...'}`).toBe('/webhooks/7/subscriptions/...');
    expect(path`/plain`).toBe('/plain');
  });

  it('refuses a dot segment, which a URL parser would collapse into another route', () => {
    for (const id of ['.', '..']) {
      let thrown: unknown;
      try {
        path`/incidents/${id}/events`;
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ClaimsValidationError);
      expect((thrown as ClaimsValidationError).issues).toEqual([
        { path: '', message: `a path parameter must not be "${id}" (a URL would drop it as a path segment)` },
      ]);
    }
  });
});
