import { BlockList, isIPv4, isIPv6 } from 'node:net';

/** Where an IP address leads, for the sandbox's own requests. */
export type AddressKind = 'loopback' | 'private' | 'public';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Not the public internet: private networks (RFC 1918, unique-local), link-local (cloud
 * metadata services live at 169.254.169.254), carrier-grade NAT, "this network" (0.0.0.0
 * reaches the host itself on Linux), multicast, broadcast, reserved and documentation ranges.
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
  ['::', 96],
  ['::ffff:0:0:0', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** Where an IPv4 address carried inside an IPv6 one points (mapped, compatible, NAT64, 6to4), if any. */
function embeddedIPv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const groups = expandIPv6(lower);
  if (!groups) return undefined;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), 64:ff9b::/96 (NAT64): the last 32 bits.
  if (zeros(0, 5) && (groups[5] === 0xffff || groups[5] === 0)) {
    if (groups[5] === 0 && groups[6] === 0) return undefined; // :: and ::1 are themselves
    return v4(groups[6] as number, groups[7] as number);
  }
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6))
    return v4(groups[6] as number, groups[7] as number);
  // 2002:AABB:CCDD::/48 (6to4): bits 16-47.
  if (groups[0] === 0x2002) return v4(groups[1] as number, groups[2] as number);
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail read too), or `undefined`. */
function expandIPv6(address: string): number[] | undefined {
  let text = address.replace(/%.*$/, '');
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const head = part(halves[0]);
  const rest = part(halves[1]);
  const fill = halves.length === 2 ? 8 - head.length - rest.length : 0;
  const groups = [...head, ...Array<number>(Math.max(fill, 0)).fill(0), ...rest];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff)
    ? groups
    : undefined;
}

/**
 * What kind of address `address` is: `loopback` (127.0.0.0/8, ::1), `private` (any network
 * that is not the public internet, including link-local) or `public`. An IPv6 address carrying
 * an IPv4 one is judged by the IPv4 one; anything that is not an IP address is `private`.
 */
export function addressKind(address: string): AddressKind {
  const bare = address.replace(/^\[|\]$/g, '');
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
