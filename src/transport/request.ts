/**
 * The outgoing request: the caller's init with sluice's signal and rules, its headers governed
 * (credentials only from the token option, identity encoding), sent through the pinned
 * connection, the runtime's fetch or an injected one.
 *
 * @module
 */
import { untilAborted } from "../deadline.ts";
import { TransportError } from "./errors.ts";
import type { ResolvedOptions } from "./fetch_options.ts";
import { pinnedTarget } from "./pinning.ts";

function prepareRequest(
  input: RequestInfo | URL,
  init: RequestInit | undefined,
  url: URL,
  options: ResolvedOptions,
  signal: AbortSignal,
): Request {
  let request: Request;
  try {
    request = new Request(input instanceof Request ? input : url, preparedInit(init, signal));
  } catch {
    throw new TransportError("transport_url_invalid", "The request could not be built.");
  }
  // The request's own copy of the headers is edited in place: one copy per request.
  governHeaders(request.headers, url, options);
  return request;
}

/**
 * The caller's init with sluice's signal and rules. A streamed request body must be declared
 * half-duplex; declaring it always spares reading the body, whose getter turns a string body
 * into a stream. Deno's fetch pumps a stream body through a resource that it never closes when
 * it refuses the request (a missing --allow-net), and that resource kept the process alive for
 * minutes.
 */
function preparedInit(
  init: RequestInit | undefined,
  signal: AbortSignal,
): RequestInit & { duplex: "half" } {
  return { ...init, signal, redirect: "manual", duplex: "half" };
}

/** Request headers no caller (nor library) sends: credentials travel only from the token option. */
const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  "authorization",
  "cookie",
  "proxy-authorization",
]);

/** The headers sluice sets on every request: identity encoding, the token to its origin only. */
function ownHeaders(url: URL, options: ResolvedOptions): [string, string][] {
  const own: [string, string][] = [["accept-encoding", "identity"]];
  if (options.authorization !== undefined && url.origin === options.authorization.origin) {
    own.push(["authorization", options.authorization.header]);
  }
  return own;
}

/**
 * The token option is the only way credentials leave; a header set by the caller (or a
 * library) never travels, and the token never goes to another origin. Applied in place to a
 * request's own copy of the headers.
 */
function governHeaders(headers: Headers, url: URL, options: ResolvedOptions): void {
  for (const name of CREDENTIAL_HEADERS) headers.delete(name);
  for (const [name, value] of ownHeaders(url, options)) headers.set(name, value);
}

/**
 * The same rules as {@link governHeaders}, on the caller's `Headers` (valid already, being
 * the runtime's own) read into a list: the runtime's fetch copies a list once, where a
 * governed copy of the `Headers` was built and then copied again (about 20 µs per request).
 */
function governedList(
  headers: Headers | undefined,
  url: URL,
  options: ResolvedOptions,
): [string, string][] {
  const own = ownHeaders(url, options);
  const list: [string, string][] = [];
  headers?.forEach((value, name) => {
    if (!CREDENTIAL_HEADERS.has(name) && !own.some(([set]) => set === name)) {
      list.push([name, value]);
    }
  });
  list.push(...own);
  return list;
}

/**
 * Sends the request. The common case (the runtime's own fetch, a URL and an init, no pinned
 * tunnel) hands fetch the init with its own copy of the headers instead of building a
 * `Request` first, which fetch would only build again; the runtime's fetch honours the signal,
 * so it needs no race. An injected fetch gets a `Request` and is raced against the signal.
 */
export function send(
  input: RequestInfo | URL,
  init: RequestInit | undefined,
  url: URL,
  options: ResolvedOptions,
  signal: AbortSignal,
  pinned: readonly string[] | undefined,
): Promise<Response> {
  if (pinned !== undefined) {
    const request = prepareRequest(input, init, url, options, signal);
    return untilAborted(options.pinned!.fetch(request, pinnedTarget(url, pinned)), signal);
  }
  if (options.nativeFetch && !(input instanceof Request)) {
    const prepared = preparedInit(init, signal);
    const given = init?.headers;
    if (given === undefined || given instanceof Headers) {
      prepared.headers = governedList(given, url, options);
      return fetch(url, prepared);
    }
    // Headers as a record or a list are checked here, so that an invalid one is refused with
    // sluice's code before anything is sent.
    let headers: Headers;
    try {
      headers = new Headers(given);
    } catch {
      throw new TransportError("transport_url_invalid", "The request could not be built.");
    }
    governHeaders(headers, url, options);
    prepared.headers = headers;
    return fetch(url, prepared);
  }
  return untilAborted(options.fetch(prepareRequest(input, init, url, options, signal)), signal);
}
