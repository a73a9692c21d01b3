/**
 * Destination rules of the hardened fetch: which URLs may be requested at all (checked before
 * any name resolution or socket) and which resolved addresses may be connected to.
 *
 * @module
 */
import { type AddressClassification, classifyAddress, parseIpv4 } from "./address.ts";
import { TransportError } from "./errors.ts";

/**
 * The part of the options that decides which destinations are allowed.
 *
 * @category Transport
 */
export interface DestinationPolicy {
  /** Allow loopback destinations (and plain http to them). Tests and local development only. */
  readonly allowLoopback: boolean;
}

/**
 * A URL that passed the checks that need no network.
 *
 * @category Transport
 */
export type CheckedDestination =
  /** The host is a loopback IP literal, allowed by the loopback option; nothing to resolve. */
  | { readonly kind: "loopback_literal"; readonly url: URL }
  /** The host is a name; its addresses still have to be checked where the runtime resolves. */
  | { readonly kind: "name"; readonly url: URL; readonly hostname: string };

// Names that reach cloud instance metadata services without DNS, or are well known aliases.
const METADATA_NAMES: ReadonlySet<string> = new Set([
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "metadata.azure.internal",
  "instance-data",
  "instance-data.ec2.internal",
]);

// A host the WHATWG parser left as a name but that still looks numeric means the runtime's URL
// parser is not WHATWG-conformant; refuse it rather than let a resolver interpret it.
const NUMERIC_LOOKING = /^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+))*\.?$/i;

const isLoopbackName = (name: string): boolean =>
  name === "localhost" || name.endsWith(".localhost");

function literalAddress(hostname: string): AddressClassification | null | "numeric" {
  if (hostname.startsWith("[")) return classifyAddress(hostname) ?? "numeric";
  if (parseIpv4(hostname) !== null) return classifyAddress(hostname);
  if (NUMERIC_LOOKING.test(hostname)) return "numeric";
  return null;
}

// Only plain loopback counts (127.0.0.0/8 and ::1); loopback reached through an IPv6 embedding
// is a disguise, not a convenience.
const isPlainLoopback = (address: AddressClassification): boolean =>
  address.range === "loopback" && address.embedding === undefined;

/**
 * Checks a request URL against the rules that need no network: scheme, user info, IP literals
 * and refused names. Throws a {@link TransportError} on the first rule broken.
 *
 * @param rawUrl the request URL as given by the caller
 * @param policy the destination policy
 * @returns the parsed URL and what remains to check
 *
 * @category Transport
 */
export function checkUrl(rawUrl: string, policy: DestinationPolicy): CheckedDestination {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new TransportError("transport_url_invalid", "The request URL is not a valid URL.");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new TransportError("transport_scheme_refused", "Only https URLs may be requested.");
  }
  if (url.username !== "" || url.password !== "") {
    throw new TransportError(
      "transport_userinfo_refused",
      "Credentials in the URL are refused; pass a token option instead.",
    );
  }
  // WHATWG parsing already turned decimal, octal, hex and percent-encoded IPv4 into dotted form
  // and compressed IPv6; the trailing dot of a fully qualified name is not part of the name.
  const hostname = url.hostname.toLowerCase().replace(/\.+$/, "");
  const literal = literalAddress(hostname);
  const loopbackLiteral = literal !== null && literal !== "numeric" && isPlainLoopback(literal);
  const loopbackHost = loopbackLiteral || isLoopbackName(hostname);

  if (url.protocol === "http:" && !(policy.allowLoopback && loopbackHost)) {
    throw new TransportError(
      "transport_scheme_refused",
      "Plain http is refused; only https, or http to loopback with dangerouslyAllowLoopback.",
    );
  }
  if (literal !== null) {
    if (policy.allowLoopback && loopbackLiteral) return { kind: "loopback_literal", url };
    throw new TransportError(
      "transport_ip_literal_refused",
      "IP address hosts are refused; use a host name.",
    );
  }
  if (hostname === "" || METADATA_NAMES.has(hostname)) {
    throw new TransportError("transport_host_refused", "This host name is refused.");
  }
  if (isLoopbackName(hostname) && !policy.allowLoopback) {
    throw new TransportError(
      "transport_host_refused",
      "Loopback host names are refused without dangerouslyAllowLoopback.",
    );
  }
  return { kind: "name", url, hostname };
}

/**
 * Whether the loopback option is what refuses `url`: the URL checks refuse it without
 * `allowLoopback` and accept it with it (http or https to 127.0.0.0/8, `[::1]`, `localhost`).
 * Lets a refusal name the option to set instead of only the rule broken.
 *
 * @param url the URL as configured
 *
 * @category Transport
 */
export function needsLoopbackOption(url: string | URL): boolean {
  const accepts = (allowLoopback: boolean) => {
    try {
      checkUrl(String(url), { allowLoopback });
      return true;
    } catch {
      return false;
    }
  };
  return !accepts(false) && accepts(true);
}

/**
 * Checks every address a name resolved to: each one must be public (or plain loopback when the
 * policy allows loopback). One bad address refuses the whole answer, so a resolver that mixes a
 * public and a private address cannot steer the connection inward.
 *
 * @param addresses the resolver's answer
 * @param policy the destination policy
 * @param loopbackOnly refuse every address that is not plain loopback (plain http requests)
 *
 * @category Transport
 */
export function checkResolvedAddresses(
  addresses: readonly string[],
  policy: DestinationPolicy,
  loopbackOnly = false,
): void {
  if (addresses.length === 0) {
    throw new TransportError("transport_dns_failed", "The host name resolved to no address.");
  }
  for (const address of addresses) {
    const classification = typeof address === "string" ? classifyAddress(address) : null;
    if (classification === null) {
      throw new TransportError(
        "transport_address_refused",
        "The host name resolved to something that is not an IP address.",
      );
    }
    if (policy.allowLoopback && isPlainLoopback(classification)) continue;
    if (loopbackOnly) {
      // Plain http is allowed to loopback only; a loopback-looking name must not lead elsewhere.
      throw new TransportError(
        "transport_address_refused",
        "A plain http host name resolved to an address that is not loopback.",
      );
    }
    if (classification.isPublic) continue;
    const via = classification.embedding === undefined
      ? ""
      : ` (embedded, ${classification.embedding})`;
    throw new TransportError(
      "transport_address_refused",
      `The host name resolved to a non-public address: ${classification.range}${via}.`,
    );
  }
}
