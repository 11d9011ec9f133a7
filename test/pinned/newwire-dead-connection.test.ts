/**
 * The error both of the client's own wires give for a request they provably never wrote
 * (`neverWrittenError`): its message, class and outcome, and which socket errors mark it a dead
 * connection, the one case the transport sends the request again on a fresh connection (a
 * kept-alive socket found closed). A connection that could not be opened is not one: it keeps
 * the retry rules of its own. dead-connections.test.ts checks the wires against real sockets.
 */
import { describe, expect, it } from 'vitest';
import { ClaimsConnectionError, outcomeOf } from '../../src/index.js';
import { isDeadConnection, markDeadConnection, neverWrittenError } from '../../src/wire/dead-connection.js';

const socketError = (code: unknown) =>
  Object.assign(new Error(`write ${String(code)}`), { code, syscall: 'write' });

describe('neverWrittenError', () => {
  it.each(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET'])(
    'a kept-alive socket found closed (%s): not_sent, marked a dead connection, the code in the message',
    (code) => {
      const cause = socketError(code);
      const error = neverWrittenError(cause);
      expect(error).toBeInstanceOf(ClaimsConnectionError);
      expect(outcomeOf(error)).toBe('not_sent');
      expect(error.cause).toBe(cause);
      expect(error.message).toContain(
        `Connection failed before any byte of the request was written, nothing was sent: write ${code} (${code})`,
      );
      expect(isDeadConnection(error)).toBe(true);
    },
  );

  it.each(['ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH'])(
    'any other socket error (%s): still not_sent, but not a dead connection',
    (code) => {
      const error = neverWrittenError(socketError(code));
      expect(outcomeOf(error)).toBe('not_sent');
      expect(error.message).toContain(`(${code})`);
      expect(isDeadConnection(error)).toBe(false);
    },
  );

  it('an error without a string code: no code in the message, not a dead connection', () => {
    for (const cause of [new Error('socket hang up'), socketError(104)]) {
      const error = neverWrittenError(cause);
      expect(error.message.endsWith(`nothing was sent: ${cause.message}`)).toBe(true);
      expect(isDeadConnection(error)).toBe(false);
    }
  });
});

describe('isDeadConnection', () => {
  it('is true only for an error a wire marked', () => {
    const marked = new Error('x');
    expect(markDeadConnection(marked)).toBe(marked);
    expect(isDeadConnection(marked)).toBe(true);
    expect(isDeadConnection(new Error('x'))).toBe(false);
    for (const value of [undefined, null, 'ECONNRESET', 0, { code: 'ECONNRESET' }]) {
      expect(isDeadConnection(value)).toBe(false);
    }
  });
});
