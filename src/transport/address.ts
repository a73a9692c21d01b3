/**
 * Pure IP address parsing and classification: which addresses a hardened client may connect to.
 *
 * Only strict textual forms are accepted here (dotted-quad IPv4 without leading zeros, RFC 4291
 * IPv6 text). Looser IPv4 spellings (`0x7f.1`, `2130706433`, `0177.0.0.1`) never reach this
 * module: the WHATWG URL parser turns them into dotted form first, and resolvers answer in
 * standard form. Anything this module cannot parse is not an address, and callers refuse it.
 *
 * @module
 */

/**
 * Why an address is or is not reachable from a hardened client. `public` is the only safe one.
 *
 * @category Transport
 */
export type AddressRange =
  | "public"
  | "loopback"
  | "private"
  | "link_local"
  | "site_local"
  | "unique_local"
  | "cgnat"
  | "multicast"
  | "unspecified"
  | "broadcast"
  | "reserved"
  | "documentation"
  | "benchmarking"
  | "metadata";

/**
 * How an IPv6 address carries an IPv4 address whose range decided its classification.
 *
 * @category Transport
 */
export type AddressEmbedding =
  | "ipv4_mapped"
  | "ipv4_compatible"
  | "ipv4_translated"
  | "nat64"
  | "6to4"
  | "teredo";

/**
 * The classification of one parsed address.
 *
 * @category Transport
 */
export interface AddressClassification {
  /** 4 or 6: the family of the address as written (an IPv4-mapped IPv6 address is family 6). */
  readonly family: 4 | 6;
  /** The range that decided the classification (for an embedding, the embedded address's). */
  readonly range: AddressRange;
  /** True only for `range === "public"`. */
  readonly isPublic: boolean;
  /** Set when the decision came from an IPv4 address embedded in an IPv6 one. */
  readonly embedding?: AddressEmbedding;
}

/**
 * Parses a strict dotted-quad IPv4 address (`192.0.2.1`; no leading zeros, no short forms).
 *
 * @example
 * ```ts
 * import { parseIpv4 } from "@sluice/mcp";
 * parseIpv4("10.0.0.1"); // Uint8Array [10, 0, 0, 1]
 * parseIpv4("0x7f.1"); // null: loose spellings are the URL parser's job
 * ```
 *
 * @param text the address text
 * @returns the four octets, or `null` when `text` is not a strict IPv4 address
 *
 * @category Transport
 */
export function parseIpv4(text: string): Uint8Array | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const octets = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i];
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return null;
    const value = Number(part);
    if (value > 255) return null;
    octets[i] = value;
  }
  return octets;
}

/**
 * Parses RFC 4291 IPv6 text (`::1`, `2001:db8::1`, `::ffff:192.0.2.1`), optionally in brackets
 * and with a zone (`fe80::1%eth0`, the zone is ignored).
 *
 * @example
 * ```ts
 * import { parseIpv6 } from "@sluice/mcp";
 * parseIpv6("[::1]"); // Uint16Array [0, 0, 0, 0, 0, 0, 0, 1]
 * ```
 *
 * @param text the address text
 * @returns the eight 16-bit groups, or `null` when `text` is not an IPv6 address
 *
 * @category Transport
 */
export function parseIpv6(text: string): Uint16Array | null {
  let body = text;
  if (body.startsWith("[") && body.endsWith("]")) body = body.slice(1, -1);
  const zone = body.indexOf("%");
  if (zone !== -1) body = body.slice(0, zone);
  if (body.length === 0 || body.length > 45) return null;

  const halves = body.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] === "" ? [] : halves[0].split(":");
  const tail = halves.length === 2 ? (halves[1] === "" ? [] : halves[1].split(":")) : [];

  // An IPv4 tail counts as two groups; it may only end the address.
  const groups: number[] = [];
  const pushAll = (parts: string[], isLastPart: boolean): boolean => {
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      if (isLastPart && i === parts.length - 1 && part.includes(".")) {
        const v4 = parseIpv4(part);
        if (v4 === null) return false;
        groups.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(part)) return false;
      groups.push(parseInt(part, 16));
    }
    return true;
  };

  if (halves.length === 1) {
    if (!pushAll(head, true) || groups.length !== 8) return null;
    return Uint16Array.from(groups);
  }
  if (!pushAll(head, false)) return null;
  const headCount = groups.length;
  if (!pushAll(tail, true)) return null;
  const tailGroups = groups.splice(headCount);
  const missing = 8 - headCount - tailGroups.length;
  // "::" stands for at least one zero group.
  if (missing < 1) return null;
  return Uint16Array.from([...groups, ...new Array<number>(missing).fill(0), ...tailGroups]);
}

interface Ipv4Range {
  readonly base: number;
  readonly prefix: number;
  readonly range: AddressRange;
}

const v4 = (a: number, b: number, c: number, d: number): number =>
  ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;

// IANA IPv4 Special-Purpose Address Registry plus cloud metadata endpoints. Order matters:
// the first match wins, so single addresses come before the blocks that contain them.
const IPV4_RANGES: readonly Ipv4Range[] = [
  { base: v4(169, 254, 169, 254), prefix: 32, range: "metadata" }, // AWS/GCP/Azure/OCI IMDS
  { base: v4(169, 254, 170, 2), prefix: 32, range: "metadata" }, // AWS ECS task metadata
  { base: v4(100, 100, 100, 200), prefix: 32, range: "metadata" }, // Alibaba Cloud
  { base: v4(168, 63, 129, 16), prefix: 32, range: "metadata" }, // Azure WireServer
  { base: v4(255, 255, 255, 255), prefix: 32, range: "broadcast" },
  { base: v4(0, 0, 0, 0), prefix: 8, range: "unspecified" },
  { base: v4(10, 0, 0, 0), prefix: 8, range: "private" },
  { base: v4(100, 64, 0, 0), prefix: 10, range: "cgnat" },
  { base: v4(127, 0, 0, 0), prefix: 8, range: "loopback" },
  { base: v4(169, 254, 0, 0), prefix: 16, range: "link_local" },
  { base: v4(172, 16, 0, 0), prefix: 12, range: "private" },
  { base: v4(192, 0, 0, 0), prefix: 24, range: "reserved" }, // IETF protocol assignments
  { base: v4(192, 0, 2, 0), prefix: 24, range: "documentation" },
  { base: v4(192, 31, 196, 0), prefix: 24, range: "reserved" }, // AS112
  { base: v4(192, 52, 193, 0), prefix: 24, range: "reserved" }, // AMT
  { base: v4(192, 88, 99, 0), prefix: 24, range: "reserved" }, // deprecated 6to4 relay anycast
  { base: v4(192, 168, 0, 0), prefix: 16, range: "private" },
  { base: v4(192, 175, 48, 0), prefix: 24, range: "reserved" }, // direct delegation AS112
  { base: v4(198, 18, 0, 0), prefix: 15, range: "benchmarking" },
  { base: v4(198, 51, 100, 0), prefix: 24, range: "documentation" },
  { base: v4(203, 0, 113, 0), prefix: 24, range: "documentation" },
  { base: v4(224, 0, 0, 0), prefix: 4, range: "multicast" },
  { base: v4(240, 0, 0, 0), prefix: 4, range: "reserved" },
];

function classifyIpv4Value(value: number): AddressRange {
  for (const entry of IPV4_RANGES) {
    const mask = entry.prefix === 0 ? 0 : (~0 << (32 - entry.prefix)) >>> 0;
    if (((value & mask) >>> 0) === entry.base) return entry.range;
  }
  return "public";
}

const octetsToValue = (o: Uint8Array): number => v4(o[0], o[1], o[2], o[3]);
const groupsToV4 = (high: number, low: number): number => ((high << 16) | low) >>> 0;

function result(
  family: 4 | 6,
  range: AddressRange,
  embedding?: AddressEmbedding,
): AddressClassification {
  const base = { family, range, isPublic: range === "public" };
  return embedding === undefined ? base : { ...base, embedding };
}

// Classification of an embedded IPv4 address: a public one keeps the whole address public.
function embedded(value: number, embedding: AddressEmbedding): AddressClassification {
  return result(6, classifyIpv4Value(value), embedding);
}

function classifyIpv6Groups(g: Uint16Array): AddressClassification {
  const zeroUpTo = (n: number): boolean => g.subarray(0, n).every((x) => x === 0);
  if (zeroUpTo(8)) return result(6, "unspecified");
  if (zeroUpTo(7) && g[7] === 1) return result(6, "loopback");
  if (zeroUpTo(5) && g[5] === 0xffff) return embedded(groupsToV4(g[6], g[7]), "ipv4_mapped");
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) {
    return embedded(groupsToV4(g[6], g[7]), "ipv4_translated"); // ::ffff:0:a.b.c.d (RFC 2765)
  }
  if (zeroUpTo(6)) return embedded(groupsToV4(g[6], g[7]), "ipv4_compatible");
  if (g[0] === 0x64 && g[1] === 0xff9b) {
    if (g.subarray(2, 6).every((x) => x === 0)) {
      return embedded(groupsToV4(g[6], g[7]), "nat64"); // 64:ff9b::/96
    }
    if (g[2] === 1) return result(6, "private"); // 64:ff9b:1::/48, local-use NAT64
  }
  // fd00:ec2::254, the AWS IMDS IPv6 endpoint, sits inside the ULA block below.
  if (
    g[0] === 0xfd00 && g[1] === 0x0ec2 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0 &&
    g[6] === 0 && g[7] === 0x254
  ) return result(6, "metadata");
  if ((g[0] & 0xfe00) === 0xfc00) return result(6, "unique_local");
  if ((g[0] & 0xffc0) === 0xfe80) return result(6, "link_local");
  if ((g[0] & 0xffc0) === 0xfec0) return result(6, "site_local");
  if ((g[0] & 0xff00) === 0xff00) return result(6, "multicast");
  if (g[0] === 0x2002) return embedded(groupsToV4(g[1], g[2]), "6to4");
  if (g[0] === 0x2001 && g[1] === 0) {
    // Teredo: server IPv4 in groups 2-3, client IPv4 in groups 6-7 with every bit inverted.
    // Either one being non-public makes the address unsafe.
    const server = embedded(groupsToV4(g[2], g[3]), "teredo");
    if (!server.isPublic) return server;
    return embedded((groupsToV4(g[6], g[7]) ^ 0xffffffff) >>> 0, "teredo");
  }
  if (g[0] === 0x2001 && g[1] === 0x0db8) return result(6, "documentation");
  if (g[0] === 0x3fff && (g[1] & 0xf000) === 0) return result(6, "documentation"); // 3fff::/20
  if (g[0] === 0x2001 && g[1] === 0x0002 && g[2] === 0) return result(6, "benchmarking");
  if (g[0] === 0x2001 && g[1] < 0x0200) return result(6, "reserved"); // rest of 2001::/23
  // Only 2000::/3 is global unicast; 100::/64, 5f00::/16 and every unassigned block is not.
  if ((g[0] & 0xe000) !== 0x2000) return result(6, "reserved");
  return result(6, "public");
}

/**
 * Classifies an IP address given as text (IPv4 dotted quad, or IPv6 with or without brackets).
 *
 * @example
 * ```ts
 * import { classifyAddress } from "@sluice/mcp";
 * classifyAddress("10.1.2.3")?.range; // "private"
 * classifyAddress("2002:c0a8:101::1"); // { family: 6, range: "private", embedding: "6to4", ... }
 * classifyAddress("example.com"); // null: not an address
 * ```
 *
 * @param text the address text
 * @returns the classification, or `null` when `text` is not an IP address
 *
 * @category Transport
 */
export function classifyAddress(text: string): AddressClassification | null {
  const octets = parseIpv4(text);
  if (octets !== null) return result(4, classifyIpv4Value(octetsToValue(octets)));
  const groups = parseIpv6(text);
  if (groups !== null) return classifyIpv6Groups(groups);
  return null;
}

/**
 * True when `text` is an IP address in a public, globally routable range. Not an address → false.
 *
 * @example
 * ```ts
 * import { isPublicAddress } from "@sluice/mcp";
 * isPublicAddress("93.184.216.34"); // true
 * isPublicAddress("::ffff:127.0.0.1"); // false
 * ```
 *
 * @param text the address text
 * @returns whether the address may be connected to
 *
 * @category Transport
 */
export function isPublicAddress(text: string): boolean {
  return classifyAddress(text)?.isPublic ?? false;
}
