/**
 * The DNS pinning contract of the hardened fetch: after the check approves the addresses of a
 * host name, the connection must go to one of them, not to whatever the runtime's own resolver
 * answers a moment later (a rebinding DNS server can answer public to the check and private to
 * the connection). The runtimes' own pinning lives in `runtime/`, which imports only this file
 * and `resolver.ts`; this file also holds the runtime-neutral parts of the in-process tunnel
 * proxy (the CONNECT parser and the pin table). The lifecycle is in `pinned_fetch.ts`.
 *
 * @module
 */

/**
 * The destination of one pinned request: the URL's host name and port, and the addresses the
 * check approved for it. A connection may only go to one of `addresses`.
 *
 * @category Transport
 */
export interface PinnedTarget {
  /** The URL's host name (lower case, as `URL` spells it); TLS verifies this name. */
  readonly hostname: string;
  /** The port, with the scheme's default filled in. */
  readonly port: number;
  /** The approved addresses, tried in order. */
  readonly addresses: readonly string[];
}

/**
 * The pinned destination of a checked URL: its approved `addresses`, or for an IP-literal host
 * (nothing resolved) the literal itself.
 *
 * @param url the checked URL
 * @param addresses the addresses the check approved; empty for an IP literal
 * @returns the target
 *
 * @category Transport
 */
export function pinnedTarget(url: URL, addresses: readonly string[]): PinnedTarget {
  const port = url.port !== "" ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  const literal = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return {
    hostname: url.hostname,
    port,
    addresses: addresses.length > 0 ? addresses : [literal],
  };
}

/**
 * Open pinning resources of one runtime (Deno: a loopback CONNECT proxy and an HTTP client).
 *
 * @category Transport
 */
export interface PinnedConnector {
  /** Sends `request` over a connection to one of `target.addresses`. */
  fetch(request: Request, target: PinnedTarget): Promise<Response>;
  /** Closes every socket and listener; resolves once they are closed. */
  close(): Promise<void>;
}

/**
 * How a runtime pins connections: its name and a factory for its resources.
 *
 * @category Transport
 */
export interface RuntimePinning {
  /** The runtime whose mechanism this is. */
  readonly source: "deno" | "bun" | "node";
  /** Opens the resources; `caCerts` are PEM certificates trusted besides the system roots. */
  open(options: { readonly caCerts?: readonly string[] }): PinnedConnector;
}

/**
 * A parsed `CONNECT` request head, as the tunnel proxy receives it.
 *
 * @category Transport
 */
export interface ConnectRequest {
  /** The requested host name, lower case. */
  readonly hostname: string;
  /** The requested port. */
  readonly port: number;
  /** The `Proxy-Authorization` header value, or `null`. */
  readonly authorization: string | null;
}

/** The largest request head the tunnel proxy reads before refusing. */
export const MAX_CONNECT_HEAD_BYTES = 8 * 1024;

/**
 * Parses a `CONNECT host:port HTTP/1.1` head (without the final blank line), or returns
 * `undefined` for anything else (an absolute-form request, a malformed line).
 *
 * @param head the request head in Latin-1
 * @returns the request, or `undefined`
 *
 * @category Transport
 */
export function parseConnectHead(head: string): ConnectRequest | undefined {
  const lines = head.split("\r\n");
  const match = /^CONNECT ([a-z0-9.-]+|\[[0-9a-f:.]+\]):(\d{1,5}) HTTP\/1\.[01]$/i.exec(lines[0]);
  if (match === null) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  let authorization: string | null = null;
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === "proxy-authorization") {
      authorization = line.slice(colon + 1).trim();
    }
  }
  return { hostname: match[1].toLowerCase(), port, authorization };
}

/**
 * The pins of one open proxy: which addresses a tunnel to `host:port` may reach, and the
 * credential a tunnel request must carry (random per proxy, so no other local process can use
 * it).
 *
 * @category Transport
 */
export class PinTable {
  readonly #pins = new Map<string, readonly string[]>();
  /** The proxy user name sent by the pinned client. */
  readonly username = "sluice";
  /** The random proxy password sent by the pinned client. */
  readonly password: string;
  readonly #expected: string;

  constructor() {
    const bytes = crypto.getRandomValues(new Uint8Array(24));
    this.password = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
    this.#expected = `Basic ${btoa(`${this.username}:${this.password}`)}`;
  }

  /**
   * Records the approved addresses of a destination (the latest check wins).
   *
   * @param target the approved destination
   */
  pin(target: PinnedTarget): void {
    this.#pins.set(`${target.hostname}:${target.port}`, target.addresses);
  }

  /**
   * The addresses a tunnel request may reach: `undefined` unless it carries this proxy's
   * credential and names a pinned destination.
   *
   * @param request the parsed CONNECT request
   * @returns the approved addresses, or `undefined` to refuse
   */
  allowed(request: ConnectRequest): readonly string[] | undefined {
    if (request.authorization !== this.#expected) return undefined;
    return this.#pins.get(`${request.hostname}:${request.port}`);
  }
}
