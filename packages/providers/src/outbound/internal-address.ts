// Which IP addresses an outbound request taken from data may reach (docs/providers.md, "Outbound
// requests"). Everything that is not ordinary global unicast counts as internal: loopback, private,
// link-local, CGNAT, multicast, documentation, benchmarking, reserved and unspecified ranges, in IPv4
// and IPv6. IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4) are judged by that address.
import { BlockList, isIPv4, isIPv6 } from "node:net";

/** IANA special-purpose IPv4 ranges (RFC 6890 and successors) plus multicast and the reserved block. */
export const INTERNAL_IPV4_RANGES: readonly (readonly [string, number])[] = [
  ["0.0.0.0", 8], // "this network", 0.0.0.0 included
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT (shared address space)
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local (cloud metadata services live here)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation (TEST-NET-1)
  ["192.31.196.0", 24], // AS112
  ["192.52.193.0", 24], // AMT
  ["192.88.99.0", 24], // 6to4 relay anycast (deprecated)
  ["192.168.0.0", 16], // private
  ["192.175.48.0", 24], // AS112 direct delegation
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation (TEST-NET-2)
  ["203.0.113.0", 24], // documentation (TEST-NET-3)
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, 255.255.255.255 (broadcast) included
];

/** IANA special-purpose IPv6 ranges, multicast and the deprecated site-local block. */
export const INTERNAL_IPV6_RANGES: readonly (readonly [string, number])[] = [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["::", 96], // IPv4-compatible (deprecated)
  ["64:ff9b:1::", 48], // local-use NAT64
  ["100::", 64], // discard-only
  ["2001::", 23], // IETF protocol assignments (Teredo, ORCHID, benchmarking, ...)
  ["2001:db8::", 32], // documentation
  ["3fff::", 20], // documentation
  ["5f00::", 16], // segment routing SIDs
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
];

const blocked = new BlockList();
for (const [network, prefix] of INTERNAL_IPV4_RANGES) blocked.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of INTERNAL_IPV6_RANGES) blocked.addSubnet(network, prefix, "ipv6");

/**
 * True when `ip` is not an ordinary global unicast address, so a request taken from data must not
 * go there. Anything that is not an IP address at all (a host name, garbage) counts as internal:
 * callers check resolved addresses, and an unreadable one is refused rather than guessed at.
 */
export function isInternalAddress(ip: string): boolean {
  const address = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  if (isIPv4(address)) return blocked.check(address, "ipv4");
  // A zone index (`fe80::1%eth0`) only exists for scoped, non-global addresses.
  if (!isIPv6(address) || address.includes("%")) return true;
  const embedded = embeddedIPv4(address);
  if (embedded !== null) return blocked.check(embedded, "ipv4");
  return blocked.check(address, "ipv6");
}

/**
 * The IPv4 address an IPv6 address stands for, when it is IPv4-mapped (`::ffff:a.b.c.d`),
 * NAT64 (`64:ff9b::a.b.c.d`, RFC 6052) or 6to4 (`2002:aabb:ccdd::`, RFC 3056); else null.
 */
export function embeddedIPv4(ipv6: string): string | null {
  const words = ipv6Words(ipv6);
  if (words === null) return null;
  const mapped = words.slice(0, 5).every((w) => w === 0) && words[5] === 0xffff;
  const nat64 = words[0] === 0x64 && words[1] === 0xff9b && words.slice(2, 6).every((w) => w === 0);
  if (mapped || nat64) return dotted(words[6]!, words[7]!);
  if (words[0] === 0x2002) return dotted(words[1]!, words[2]!);
  return null;
}

/** The eight 16-bit words of an IPv6 address (a trailing dotted IPv4 part allowed), or null. */
function ipv6Words(ipv6: string): number[] | null {
  let text = ipv6.toLowerCase();
  const dottedTail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dottedTail) {
    const [a, b, c, d] = dottedTail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dottedTail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return null;
  const words = [...head, ...Array<string>(missing).fill("0"), ...tail].map((w) => parseInt(w, 16));
  return words.length === 8 && words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff)
    ? words
    : null;
}

function dotted(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}
