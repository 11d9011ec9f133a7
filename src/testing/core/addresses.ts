import { BlockList, isIPv4, isIPv6 } from 'node:net';

/** Where an IP address leads, for the sandbox's own requests. */
export type AddressKind = 'loopback' | 'private' | 'public';

// A BlockList judges an IPv4-mapped IPv6 address (::ffff:a.b.c.d) by its IPv4 rules itself.
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Not the public internet: private networks (RFC 1918, unique-local), link-local (cloud
 * metadata services live at 169.254.169.254), carrier-grade NAT, "this network" (0.0.0.0
 * reaches the host itself on Linux), multicast, broadcast, reserved and documentation ranges,
 * and the IPv6 forms that carry IPv4 addresses no public route leads to.
 */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, and the deprecated IPv4-compatible form
  ['::ffff:0:0:0', 96], // IPv4-translated (SIIT)
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** A host name or address without the brackets a URL puts around an IPv6 address. */
export function unbracket(host: string): string {
  return host.startsWith('[') ? host.slice(1, -1) : host;
}

/**
 * The IPv4 address a NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address leads to: the gateway
 * forwards there, so that is what to judge.
 */
function embeddedIPv4(address: string): string | undefined {
  const groups = expandIPv6(address);
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0)) {
    return v4(groups[6] as number, groups[7] as number);
  }
  if (groups[0] === 0x2002) return v4(groups[1] as number, groups[2] as number);
  return undefined;
}

/** The eight 16-bit groups of a valid IPv6 address (a zone id dropped, a dotted IPv4 tail read). */
function expandIPv6(address: string): number[] {
  let text = address.split('%')[0] as string;
  // Stryker disable next-line Regex: in a valid IPv6 address a dotted IPv4 part can only come last
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  // Stryker disable next-line ArrayDeclaration: an empty half stands for zeros either way, and only the first three groups are read
  const groups = (part = '') => (part ? part.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const before = groups(head);
  const after = groups(rest);
  return [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
}

/**
 * What kind of address `address` is: `loopback` (127.0.0.0/8, ::1), `private` (any network
 * that is not the public internet, including link-local) or `public`. An IPv6 address carrying
 * an IPv4 one is judged by the IPv4 one; anything that is not an IP address is `private`.
 */
export function addressKind(address: string): AddressKind {
  const bare = unbracket(address);
  if (isIPv4(bare)) {
    if (LOOPBACK.check(bare, 'ipv4')) return 'loopback';
    return NOT_PUBLIC.check(bare, 'ipv4') ? 'private' : 'public';
  }
  if (!isIPv6(bare)) return 'private';
  const inner = embeddedIPv4(bare);
  if (inner !== undefined) return addressKind(inner);
  if (LOOPBACK.check(bare, 'ipv6')) return 'loopback';
  return NOT_PUBLIC.check(bare, 'ipv6') ? 'private' : 'public';
}
