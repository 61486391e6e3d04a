/**
 * Which kind of network an IP address belongs to, for the media fetcher's SSRF guard. Pure.
 *
 * Written on bytes rather than with a library: the ranges are few and fixed (RFC 6890 special-
 * purpose registries), and IPv6 forms that embed an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`,
 * IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) must be judged by the IPv4
 * address inside, which `node:net`'s BlockList does not do for all of them.
 */
import { isIPv4, isIPv6 } from 'node:net';

export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'unspecified'
  | 'multicast'
  | 'metadata'
  | 'reserved'
  | 'invalid';

interface Range {
  bytes: number[];
  bits: number;
  kind: Exclude<AddressClass, 'public' | 'invalid'>;
}

/** First match wins, so exact metadata addresses come before the ranges that contain them. */
const V4_RANGES: Range[] = [
  { bytes: [169, 254, 169, 254], bits: 32, kind: 'metadata' },
  { bytes: [0, 0, 0, 0], bits: 32, kind: 'unspecified' },
  { bytes: [0], bits: 8, kind: 'reserved' }, // "this network"
  { bytes: [10], bits: 8, kind: 'private' },
  { bytes: [100, 64], bits: 10, kind: 'cgnat' },
  { bytes: [127], bits: 8, kind: 'loopback' },
  { bytes: [169, 254], bits: 16, kind: 'link-local' },
  { bytes: [172, 16], bits: 12, kind: 'private' },
  { bytes: [192, 0, 0], bits: 24, kind: 'reserved' }, // IETF protocol assignments
  { bytes: [192, 0, 2], bits: 24, kind: 'reserved' }, // documentation
  { bytes: [192, 88, 99], bits: 24, kind: 'reserved' }, // 6to4 relay anycast
  { bytes: [192, 168], bits: 16, kind: 'private' },
  { bytes: [198, 18], bits: 15, kind: 'reserved' }, // benchmarking
  { bytes: [198, 51, 100], bits: 24, kind: 'reserved' },
  { bytes: [203, 0, 113], bits: 24, kind: 'reserved' },
  { bytes: [224], bits: 4, kind: 'multicast' },
  { bytes: [240], bits: 4, kind: 'reserved' }, // includes 255.255.255.255
];

const V6_RANGES: Range[] = [
  { bytes: [0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54], bits: 128, kind: 'metadata' }, // fd00:ec2::254
  { bytes: Array(16).fill(0), bits: 128, kind: 'unspecified' },
  { bytes: [...Array(15).fill(0), 1], bits: 128, kind: 'loopback' },
  { bytes: [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], bits: 48, kind: 'private' }, // local-use NAT64
  { bytes: [0x01, 0x00, 0, 0, 0, 0, 0, 0], bits: 64, kind: 'reserved' }, // discard-only
  { bytes: [0x20, 0x01, 0x00, 0x00], bits: 32, kind: 'reserved' }, // Teredo: the client address inside is obfuscated
  { bytes: [0x20, 0x01, 0x0d, 0xb8], bits: 32, kind: 'reserved' }, // documentation
  { bytes: [0xfc], bits: 7, kind: 'private' }, // unique local
  { bytes: [0xfe, 0x80], bits: 10, kind: 'link-local' },
  { bytes: [0xfe, 0xc0], bits: 10, kind: 'private' }, // deprecated site-local
  { bytes: [0xff], bits: 8, kind: 'multicast' },
];

/** Classifies an IP address literal (IPv6 may carry a zone, `fe80::1%eth0`, or brackets). */
export function classifyAddress(address: string): AddressClass {
  let ip = address.trim();
  if (ip.startsWith('[') && ip.endsWith(']')) ip = ip.slice(1, -1);
  const zone = ip.indexOf('%');
  if (zone !== -1) ip = ip.slice(0, zone);
  if (isIPv4(ip)) return classifyV4(ip.split('.').map(Number));
  if (isIPv6(ip)) {
    const bytes = parseIPv6(ip);
    return bytes ? classifyV6(bytes) : 'invalid';
  }
  return 'invalid';
}

function classifyV4(bytes: number[]): AddressClass {
  return V4_RANGES.find((r) => inRange(bytes, r))?.kind ?? 'public';
}

function classifyV6(bytes: number[]): AddressClass {
  const own = V6_RANGES.find((r) => inRange(bytes, r));
  if (own) return own.kind;
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible): the kernel connects to the IPv4 address.
  if (zeros(0, 10) && ((bytes[10] === 0xff && bytes[11] === 0xff) || (bytes[10] === 0 && bytes[11] === 0))) {
    return classifyV4(bytes.slice(12));
  }
  // NAT64 well-known prefix 64:ff9b::/96 translates to the IPv4 address in the last 32 bits.
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12)) {
    return classifyV4(bytes.slice(12));
  }
  // 6to4 2002:AABB:CCDD::/48 routes to the IPv4 address AA.BB.CC.DD.
  if (bytes[0] === 0x20 && bytes[1] === 0x02) {
    const inner = classifyV4(bytes.slice(2, 6));
    if (inner !== 'public') return inner;
  }
  return 'public';
}

function inRange(bytes: number[], range: Range): boolean {
  let bits = range.bits;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((range.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** 16 bytes of a valid IPv6 literal (already checked by `isIPv6`), with `::` and a dotted tail. */
function parseIPv6(ip: string): number[] | undefined {
  let text = ip.toLowerCase();
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    tail = last.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const [head = '', rest] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const restGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const fill = rest === undefined ? 0 : 8 - headGroups.length - restGroups.length;
  const groups = [...headGroups, ...Array(fill).fill('0'), ...restGroups];
  if (groups.length !== 8) return undefined;
  const bytes = groups.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}
