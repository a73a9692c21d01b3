// Pure tests of the IP classifier. Expected ranges come from the IANA special-purpose registries
// (RFC 6890 and successors) and the cloud providers' documented metadata addresses.
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type AddressEmbedding,
  type AddressRange,
  classifyAddress,
  isPublicAddress,
  parseIpv4,
  parseIpv6,
} from "../../src/transport/address.ts";

type Row = readonly [text: string, range: AddressRange, embedding?: AddressEmbedding];

const IPV4: readonly Row[] = [
  ["0.0.0.0", "unspecified"],
  ["0.255.1.2", "unspecified"],
  ["10.0.0.1", "private"],
  ["10.255.255.255", "private"],
  ["100.63.255.255", "public"],
  ["100.64.0.1", "cgnat"],
  ["100.127.255.254", "cgnat"],
  ["100.128.0.0", "public"],
  ["100.100.100.200", "metadata"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["128.0.0.1", "public"],
  ["169.254.0.1", "link_local"],
  ["169.254.169.254", "metadata"],
  ["169.254.170.2", "metadata"],
  ["168.63.129.16", "metadata"],
  ["172.15.255.255", "public"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["172.32.0.0", "public"],
  ["192.0.0.8", "reserved"],
  ["192.0.2.33", "documentation"],
  ["192.88.99.1", "reserved"],
  ["192.167.255.255", "public"],
  ["192.168.1.1", "private"],
  ["192.169.0.0", "public"],
  ["198.17.255.255", "public"],
  ["198.18.0.1", "benchmarking"],
  ["198.19.255.255", "benchmarking"],
  ["198.20.0.0", "public"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.9", "documentation"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.254", "reserved"],
  ["255.255.255.255", "broadcast"],
  ["1.1.1.1", "public"],
  ["8.8.8.8", "public"],
  ["93.184.216.34", "public"],
  ["223.255.255.255", "public"],
];

const IPV6: readonly Row[] = [
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["[::1]", "loopback"],
  ["0:0:0:0:0:0:0:1", "loopback"],
  ["::2", "unspecified", "ipv4_compatible"], // ::0.0.0.2 sits in 0.0.0.0/8
  ["::ffff:127.0.0.1", "loopback", "ipv4_mapped"],
  ["::ffff:7f00:1", "loopback", "ipv4_mapped"],
  ["::ffff:a00:1", "private", "ipv4_mapped"],
  ["::ffff:169.254.169.254", "metadata", "ipv4_mapped"],
  ["::ffff:8.8.8.8", "public", "ipv4_mapped"],
  ["::127.0.0.1", "loopback", "ipv4_compatible"],
  ["::10.1.2.3", "private", "ipv4_compatible"],
  ["::ffff:0:192.168.0.1", "private", "ipv4_translated"],
  ["64:ff9b::10.0.0.1", "private", "nat64"],
  ["64:ff9b::a9fe:a9fe", "metadata", "nat64"],
  ["64:ff9b::8.8.8.8", "public", "nat64"],
  ["64:ff9b:1::1", "private"],
  ["2002:c0a8:0101::1", "private", "6to4"], // 192.168.1.1
  ["2002:7f00:1::", "loopback", "6to4"],
  ["2002:a9fe:a9fe::1", "metadata", "6to4"],
  ["2002:0808:0808::1", "public", "6to4"],
  // Teredo client 10.0.0.1 is stored inverted: f5ff:fffe.
  ["2001:0:4136:e378:8000:63bf:f5ff:fffe", "private", "teredo"],
  // Teredo client 127.0.0.1 inverted: 80ff:fffe.
  ["2001::4136:e378:0:0:80ff:fffe", "loopback", "teredo"],
  // Teredo server 10.0.0.1 (not inverted), client 8.8.8.8 inverted f7f7:f7f7.
  ["2001:0:a00:1::f7f7:f7f7", "private", "teredo"],
  // Public server 65.54.227.120 and public client 8.8.8.8.
  ["2001:0:4136:e378:8000:63bf:f7f7:f7f7", "public", "teredo"],
  ["2001:db8::1", "documentation"],
  ["3fff::1", "documentation"],
  ["3fff:fff::1", "documentation"],
  ["2001:2::1", "benchmarking"],
  ["2001:10::1", "reserved"],
  ["100::1", "reserved"],
  ["5f00::1", "reserved"],
  ["fc00::1", "unique_local"],
  ["fd12:3456::1", "unique_local"],
  ["fd00:ec2::254", "metadata"],
  ["fe80::1", "link_local"],
  ["fe80::1%eth0", "link_local"],
  ["febf::1", "link_local"],
  ["fec0::1", "site_local"],
  ["ff02::1", "multicast"],
  ["ff0e::1", "multicast"],
  ["2606:4700:4700::1111", "public"],
  ["2a00:1450:4001:80b::200e", "public"],
  ["2400::1", "public"],
  ["3ffe::1", "public"],
];

Deno.test("IPv4 addresses are classified by the IANA special-purpose registry", () => {
  for (const [text, range] of IPV4) {
    const got = classifyAddress(text);
    assert.ok(got, text);
    assert.equal(got.range, range, text);
    assert.equal(got.family, 4, text);
    assert.equal(got.isPublic, range === "public", text);
    assert.equal(got.embedding, undefined, text);
  }
});

Deno.test("IPv6 addresses, including IPv4 embeddings, are classified", () => {
  for (const [text, range, embedding] of IPV6) {
    const got = classifyAddress(text);
    assert.ok(got, text);
    assert.equal(got.range, range, text);
    assert.equal(got.embedding, embedding, text);
    assert.equal(got.family, 6, text);
    assert.equal(isPublicAddress(text), range === "public", text);
  }
});

Deno.test("strict IPv4 parsing rejects loose spellings", () => {
  assert.deepEqual([...parseIpv4("192.0.2.1")!], [192, 0, 2, 1]);
  for (
    const text of [
      "0x7f.0.0.1",
      "0177.0.0.1",
      "127.1",
      "2130706433",
      "127.0.0.1.",
      "256.0.0.1",
      "1.2.3",
      "1.2.3.4.5",
      " 1.2.3.4",
      "1.2.3.-4",
      "01.2.3.4",
      "",
    ]
  ) assert.equal(parseIpv4(text), null, text);
});

Deno.test("IPv6 parsing handles compression, IPv4 tails, brackets and bad input", () => {
  assert.deepEqual([...parseIpv6("2001:db8::1")!], [0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]);
  assert.deepEqual([...parseIpv6("1::")!], [1, 0, 0, 0, 0, 0, 0, 0]);
  assert.deepEqual([...parseIpv6("::ffff:1.2.3.4")!], [0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304]);
  assert.deepEqual(
    [...parseIpv6("1:2:3:4:5:6:7:8")!],
    [1, 2, 3, 4, 5, 6, 7, 8],
  );
  assert.deepEqual([...parseIpv6("1:2:3:4:5:6:1.2.3.4")!], [1, 2, 3, 4, 5, 6, 0x0102, 0x0304]);
  for (
    const text of [
      "1:2:3:4:5:6:7:8:9",
      "1:2:3:4:5:6:7:8::",
      "1::2::3",
      ":1::",
      "1:::2",
      "12345::",
      "g::1",
      "::1.2.3.4:5",
      "1.2.3.4::",
      "[::1",
      "::256.1.1.1",
      "1:2:3:4:5:6:7",
      "",
      "example.com",
    ]
  ) assert.equal(parseIpv6(text), null, text);
  assert.equal(classifyAddress("example.com"), null);
  assert.equal(isPublicAddress("not an address"), false);
});

Deno.test("every IPv4 address embedded in 6to4 or IPv4-mapped IPv6 keeps its IPv4 class", () => {
  fc.assert(
    fc.property(fc.ipV4(), (text) => {
      const plain = classifyAddress(text)!;
      const o = parseIpv4(text)!;
      const hex = (a: number, b: number) => ((a << 8) | b).toString(16);
      const mapped = classifyAddress(`::ffff:${hex(o[0], o[1])}:${hex(o[2], o[3])}`)!;
      const sixToFour = classifyAddress(`2002:${hex(o[0], o[1])}:${hex(o[2], o[3])}::1`)!;
      const nat64 = classifyAddress(`64:ff9b::${text}`)!;
      const inv = o.map((x) => x ^ 0xff);
      const teredo = classifyAddress(
        `2001:0:4136:e378:8000:63bf:${hex(inv[0], inv[1])}:${hex(inv[2], inv[3])}`,
      )!;
      for (const wrapped of [mapped, sixToFour, nat64, teredo]) {
        assert.equal(wrapped.range, plain.range);
        assert.equal(wrapped.isPublic, plain.isPublic);
      }
    }),
    { numRuns: 500 },
  );
});

Deno.test("any IPv6 text outside 2000::/3 and the embedding prefixes is not public", () => {
  fc.assert(
    fc.property(fc.ipV6(), (text) => {
      const got = classifyAddress(text);
      assert.ok(got, text);
      const first = parseIpv6(text)![0];
      const embedsV4 = got.embedding !== undefined;
      if ((first & 0xe000) !== 0x2000 && !embedsV4) assert.equal(got.isPublic, false, text);
    }),
    { numRuns: 500 },
  );
});
