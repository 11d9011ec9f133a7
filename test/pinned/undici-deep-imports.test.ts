import * as undici from 'undici';
import { describe, expect, it } from 'vitest';
import { loadUndiciAgents } from '../../src/wire/undici-agents.js';

// The SDK loads undici's two agent classes from their own modules (a smaller bundle, a cheaper
// cold start). An undici update that moves or renames them must fail here, not in production.
describe('undici deep imports', () => {
  it('are the very classes the package exports', async () => {
    const agents = await loadUndiciAgents();
    expect(agents.Agent).toBe(undici.Agent);
    expect(agents.EnvHttpProxyAgent).toBe(undici.EnvHttpProxyAgent);
  });

  it('give a working dispatcher', async () => {
    const { Agent } = await loadUndiciAgents();
    const agent = new Agent();
    expect(typeof agent.request).toBe('function');
    await agent.close();
  });
});
