/**
 * The `node:http` wire's agents, with the clock given by hand: how an old agent is ended when a
 * fresh one replaces it (the idle gap and the server's `keep-alive` header that decide when are
 * the rule both pools share: idle-pool.test.ts), retired agents, close(), TLS options.
 * http-stale-sockets.test.ts checks the same against a real server and real freezes.
 */
import type { Agent } from 'node:http';
import { describe, expect, it } from 'vitest';
import { type HttpClient, OwnHttpAgent, ownHttpAgent } from '../../src/wire/http-agent.js';

interface FakeAgent {
  id: number;
  keepAlive: boolean;
  freeSockets: Record<string, Array<{ destroyed: boolean; destroy(): void }> | undefined>;
}

function socket() {
  return {
    destroyed: false,
    destroy() {
      this.destroyed = true;
    },
  };
}

const client = { secure: false } as HttpClient;

/** An OwnHttpAgent whose agents are numbered stand-ins, each with one idle socket. */
function setUp() {
  const made: FakeAgent[] = [];
  const agents = new OwnHttpAgent(() => {
    const agent: FakeAgent = { id: made.length + 1, keepAlive: true, freeSockets: { 'x:80:': [socket()] } };
    made.push(agent);
    return agent as unknown as Agent;
  });
  const take = (now: number) => (agents.take(client, now) as unknown as FakeAgent).id;
  return { agents, made, take };
}

describe('the node:http wire’s agents', () => {
  it('end the old agent without cutting a request short: idle sockets destroyed, busy ones on release', () => {
    const { made, take } = setUp();
    take(0);
    const old = made[0] as FakeAgent;
    old.freeSockets['y:80:'] = undefined;
    take(5_000);
    expect(old.keepAlive).toBe(false);
    expect(old.freeSockets['x:80:']?.[0]?.destroyed).toBe(true);
    expect(made[1]?.keepAlive).toBe(true);
  });

  it('retiring an agent that was replaced already keeps the current one: calls failing together go on to one fresh agent', () => {
    const { agents, made, take } = setUp();
    take(0);
    agents.retire(made[0] as unknown as Agent);
    expect(take(1)).toBe(2);
    agents.retire(made[0] as unknown as Agent);
    expect(take(2)).toBe(2);
    expect(made[1]?.keepAlive).toBe(true);
    agents.retire(made[1] as unknown as Agent);
    expect(made[1]?.keepAlive).toBe(false);
    expect(take(3)).toBe(3);
  });

  it('after close(): every take is refused (nothing sent), and the agent is ended', async () => {
    const { agents, made, take } = setUp();
    take(0);
    await agents.close();
    expect(made[0]?.keepAlive).toBe(false);
    expect(() => take(1)).toThrow(expect.objectContaining({ kind: 'refused' }));
    expect(() => take(1)).toThrow('The client is closed (client.close() was called): nothing was sent');
    expect(made).toHaveLength(1);
  });

  it('after the turn a request waits before reusing a socket: the agent it took, unless that was replaced meanwhile', async () => {
    const { agents, made, take } = setUp();
    const still = (agent: FakeAgent | undefined, now: number) =>
      (agents.stillCurrent(agent as unknown as Agent, client, now) as unknown as FakeAgent).id;
    take(0);
    // Still current: kept, even past the idle limit (the request took it in time).
    expect(still(made[0], 10_000)).toBe(1);
    expect(made).toHaveLength(1);
    // Retired meanwhile (a dead connection): the one fresh agent the others go on to.
    agents.retire(made[0] as unknown as Agent);
    expect(still(made[0], 10_001)).toBe(2);
    expect(still(made[0], 10_002)).toBe(2);
    // Replaced for idleness meanwhile by another request: the new one.
    expect(take(20_000)).toBe(3);
    expect(still(made[1], 20_001)).toBe(3);
    // The client closed meanwhile: the call under way finishes on its own agent, not refused.
    await agents.close();
    expect(still(made[2], 20_002)).toBe(3);
    expect(still(made[0], 20_003)).toBe(1);
    expect(made).toHaveLength(3);
  });

  it('close() before any request makes no agent', () => {
    const { agents, made } = setUp();
    agents.close();
    expect(made).toHaveLength(0);
  });

  it('give the client’s TLS options to an https agent only, with keep-alive on', () => {
    const tls = { ca: 'CA PEM' };
    const seen: unknown[] = [];
    class Recording {
      constructor(options: unknown) {
        seen.push(options);
      }
      freeSockets = {};
    }
    const agents = ownHttpAgent(tls);
    agents.take({ Agent: Recording, secure: true } as unknown as HttpClient, 0);
    const plain = ownHttpAgent(tls);
    plain.take({ Agent: Recording, secure: false } as unknown as HttpClient, 0);
    expect(seen).toEqual([{ keepAlive: true, ca: 'CA PEM' }, { keepAlive: true }]);
  });
});
