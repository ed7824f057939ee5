import { embeddedIPv4, isInternalAddress } from "../internal-address";

describe("isInternalAddress", () => {
  it.each([
    // IPv4
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "this network"],
    ["10.0.0.1", "private"],
    ["10.255.255.255", "private, last"],
    ["100.64.0.1", "CGNAT"],
    ["100.127.255.254", "CGNAT, last"],
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback, elsewhere in /8"],
    ["169.254.169.254", "link-local (cloud metadata)"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private, last"],
    ["192.0.0.8", "IETF protocol assignments"],
    ["192.0.2.10", "TEST-NET-1"],
    ["192.88.99.1", "6to4 relay"],
    ["192.168.1.1", "private"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.255", "benchmarking, last"],
    ["198.51.100.7", "TEST-NET-2"],
    ["203.0.113.9", "TEST-NET-3"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast (SSDP)"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "broadcast"],
    // IPv6
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["[::1]", "loopback in URL brackets"],
    ["0:0:0:0:0:0:0:1", "loopback, long form"],
    ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
    ["::ffff:7f00:1", "IPv4-mapped loopback, hex"],
    ["::ffff:10.1.2.3", "IPv4-mapped private"],
    ["::ffff:169.254.169.254", "IPv4-mapped link-local"],
    ["::ffff:0.0.0.0", "IPv4-mapped unspecified"],
    ["::127.0.0.1", "IPv4-compatible (deprecated)"],
    ["64:ff9b::7f00:1", "NAT64 of loopback"],
    ["64:ff9b::10.0.0.1", "NAT64 of private"],
    ["64:ff9b:1::1", "local-use NAT64"],
    ["2002:7f00:1::1", "6to4 of loopback"],
    ["2002:c0a8:101::", "6to4 of 192.168.1.1"],
    ["2001::1", "Teredo"],
    ["2001:db8::1", "documentation"],
    ["100::1", "discard"],
    ["fc00::1", "unique local"],
    ["fd12:3456:789a::1", "unique local"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local with a zone"],
    ["febf::1", "link-local, last"],
    ["fec0::1", "site-local"],
    ["ff02::1", "multicast"],
    // Not an address at all: refused rather than guessed at.
    ["localhost", "a name"],
    ["", "empty"],
    ["127.1", "shorthand (URL parsing normalises it; the check does not guess)"],
    ["1.2.3.4.5", "garbage"],
  ])("%s is internal (%s)", (ip) => {
    expect(isInternalAddress(ip)).toBe(true);
  });

  it.each([
    ["1.1.1.1"],
    ["8.8.8.8"],
    ["93.184.215.14"],
    ["100.63.255.255"], // just below CGNAT
    ["100.128.0.0"], // just above CGNAT
    ["172.15.255.255"], // just below 172.16/12
    ["172.32.0.0"], // just above
    ["192.167.255.255"],
    ["198.17.255.255"],
    ["223.255.255.255"], // last before multicast
    ["2606:4700:4700::1111"],
    ["2a00:1450:4001:80b::200e"],
    ["[2606:4700:4700::1111]"],
    ["::ffff:1.1.1.1"], // mapped global
    ["64:ff9b::101:101"], // NAT64 of 1.1.1.1
    ["2002:808:808::1"], // 6to4 of 8.8.8.8
  ])("%s is global", (ip) => {
    expect(isInternalAddress(ip)).toBe(false);
  });
});

describe("embeddedIPv4", () => {
  it.each([
    ["::ffff:127.0.0.1", "127.0.0.1"],
    ["::ffff:7f00:1", "127.0.0.1"],
    ["::FFFF:A00:1", "10.0.0.1"],
    ["64:ff9b::c0a8:101", "192.168.1.1"],
    ["2002:0808:0808::", "8.8.8.8"],
    ["2606:4700::1111", null],
    ["::1", null],
  ])("%s carries %s", (ip, expected) => {
    expect(embeddedIPv4(ip)).toBe(expected);
  });
});
