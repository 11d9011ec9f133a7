/**
 * Where the sandbox's own requests may go, decided without a socket: what kind of address an
 * address is, and the guard that resolves names (through an injected resolver) and checks
 * every address, before the request and again as the socket connects.
 */
import { describe, expect, it } from 'vitest';
import { addressKind, unbracket } from '../../src/testing/core/addresses.js';
import { REFUSED_TARGET, TargetGuard, TargetRefusedError } from '../../src/testing/core/target-guard.js';

const REFUSED =
  'the address is on a private or link-local network, which the sandbox does not reach unless allowPrivateTargets is true';

describe('addressKind', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'private'],
    ['100.64.0.1', 'private'],
    ['0.0.0.0', 'private'],
    ['224.0.0.1', 'private'],
    ['255.255.255.255', 'private'],
    ['::', 'private'],
    ['fe80::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['ff02::1', 'private'],
    ['::ffff:169.254.169.254', 'private'],
    ['::ffff:a9fe:a9fe', 'private'],
    ['64:ff9b::169.254.169.254', 'private'],
    ['64:ff9b::a9fe:a9fe', 'private'],
    ['2002:a9fe:a9fe::1', 'private'],
    ['::10.0.0.1', 'private'],
    ['fe80::1%eth0', 'private'],
    ['not an address', 'private'],
    ['8.8.8.8', 'public'],
    ['172.32.0.1', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['2002:0808:0808::1', 'public'],
    ['2002:7f00:1::', 'loopback'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['64:ff9b::93.184.215.14', 'public'],
    ['2606:4700:4700:0:0:0:0:1111', 'public'],
    ['64:ff9b:0:0:0:0:a9fe:a9fe', 'private'],
    ['64:ff9b::100.64.215.14', 'private'],
    ['64:ff9b::8.8.8.8%eth0', 'public'],
    ['64:ff9b::0808:0808', 'public'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b:0:0:1::a9fe:a9fe', 'public'],
    ['64:ff9b:0:1::a9fe:a9fe', 'public'],
    ['65:ff9b::a9fe:a9fe', 'public'],
    ['64:ff9c::a9fe:a9fe', 'public'],
    ['64:ff9b:1::5', 'private'],
    ['::ffff:0:a9fe:a9fe', 'private'],
    ['[fe80::1]', 'private'],
    ['[2606:4700::1]', 'public'],
    ['1.2.3.4.5', 'private'],
  ])('%s is %s', (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });
});

describe('unbracket', () => {
  it('drops the brackets of an IPv6 address in a URL, and nothing else', () => {
    expect(['[::1]', '::1', 'example.test', '127.0.0.1'].map(unbracket)).toEqual([
      '::1',
      '::1',
      'example.test',
      '127.0.0.1',
    ]);
    expect(REFUSED_TARGET).toBe(REFUSED);
  });
});

describe('TargetGuard', () => {
  it('checks every address a name resolves to; one private address is enough to refuse', async () => {
    const names: string[] = [];
    const guard = new TargetGuard({
      lookup: async (name) => {
        names.push(name);
        return name === 'mixed.test'
          ? [{ address: '8.8.8.8' }, { address: '10.0.0.1', family: 4 }]
          : [{ address: '127.0.0.1' }];
      },
    });
    await expect(guard.check(new URL('http://mixed.test/x'))).rejects.toThrow(TargetRefusedError);
    await expect(guard.check(new URL('http://local.test/x'))).resolves.toBeUndefined();
    await expect(guard.check(new URL('http://[fd00::1]:8080/x'))).rejects.toThrow(REFUSED);
    await expect(guard.check(new URL('http://0x7f.1/x'))).resolves.toBeUndefined();
    expect(names).toEqual(['mixed.test', 'local.test']);
    await expect(
      new TargetGuard({ lookup: async () => [] }).check(new URL('http://none.test')),
    ).rejects.toThrow('the name has no address');
  });

  it('allows private targets when told to', async () => {
    const guard = new TargetGuard({
      allowPrivateTargets: true,
      lookup: async () => [{ address: '192.168.0.10' }],
    });
    await expect(guard.resolve('nas.test')).resolves.toEqual([{ address: '192.168.0.10', family: 4 }]);
  });

  it('checks again as the socket connects, in the form node asks for (all or one)', async () => {
    const guard = new TargetGuard({
      lookup: async (name) => [
        { address: name === 'ok.test' ? '::1' : '10.0.0.1', family: name === 'ok.test' ? 6 : 4 },
      ],
    });
    const ask = (name: string, all: boolean) =>
      new Promise<unknown[]>((resolve) => guard.connectLookup(name, { all }, (...args) => resolve(args)));
    expect(await ask('ok.test', true)).toEqual([null, [{ address: '::1', family: 6 }]]);
    expect(await ask('ok.test', false)).toEqual([null, '::1', 6]);
    const [error] = await ask('bad.test', false);
    expect(error).toBeInstanceOf(TargetRefusedError);
  });
});

describe('TargetGuard, its edges', () => {
  it('gives an address without a family the family of its form', async () => {
    const guard = new TargetGuard({ lookup: async () => [{ address: '::1' }, { address: '127.0.0.2' }] });
    await expect(guard.resolve('both.test')).resolves.toEqual([
      { address: '::1', family: 6 },
      { address: '127.0.0.2', family: 4 },
    ]);
    await expect(guard.resolve('::1')).resolves.toEqual([{ address: '::1', family: 6 }]);
    await expect(guard.resolve('127.0.0.1')).resolves.toEqual([{ address: '127.0.0.1', family: 4 }]);
  });

  it('passes the resolver’s own failure on, to the check and to the socket', async () => {
    const failure = new Error('getaddrinfo ENOTFOUND nowhere.test');
    const guard = new TargetGuard({
      lookup: async () => {
        throw failure;
      },
    });
    await expect(guard.check(new URL('http://nowhere.test/'))).rejects.toBe(failure);
    const args = await new Promise<unknown[]>((resolve) =>
      guard.connectLookup('nowhere.test', { all: true }, (...a) => resolve(a)),
    );
    expect(args).toEqual([failure, []]);
  });

  it('allows a name whose addresses are loopback and public', async () => {
    const guard = new TargetGuard({
      lookup: async () => [{ address: '127.0.0.1' }, { address: '93.184.215.14' }],
    });
    await expect(guard.resolve('mixed-ok.test')).resolves.toHaveLength(2);
  });

  it('says nothing of the address in its refusal', async () => {
    const guard = new TargetGuard({ lookup: async () => [{ address: '10.11.12.13' }] });
    const error = await guard.check(new URL('http://internal.test:8443/')).catch((e: Error) => e);
    expect(error).toBeInstanceOf(TargetRefusedError);
    expect((error as Error).name).toBe('TargetRefusedError');
    expect((error as Error).message).toBe(REFUSED);
  });

  it('uses the system resolver by default (localhost is loopback)', async () => {
    await expect(new TargetGuard().check(new URL('http://localhost:1/'))).resolves.toBeUndefined();
  });
});
