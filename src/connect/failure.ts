/**
 * Why a server could not be set up, in sluice's words: one explanation per code, naming the
 * setting to change where one exists. `report()` (each failed server's `reason` and its skipped
 * tools), `ConnectError` and the CLI share it; the CLI names its own flags
 * (`--allow-loopback`) where connect() names its options.
 *
 * @module
 */
import { SluiceError } from "../errors.ts";
import type { SluiceCode } from "../codes.ts";
import { needsLoopbackOption } from "../transport/policy.ts";
import { ConnectError, type ServerFailure } from "./errors.ts";

/**
 * How the settings an explanation names are spelled where its reader sets them.
 *
 * @category Agent developers: connect()
 */
export interface FailureSettings {
  /** The loopback option. */
  readonly loopback: string;
  /** The deadline of each request. */
  readonly timeout: string;
  /** The response byte cap, where the reader can raise it. */
  readonly maxResponseBytes?: string;
}

/**
 * The settings as `connect()` / `connectAll()` spell them.
 *
 * @category Agent developers: connect()
 */
export const CONNECT_SETTINGS: FailureSettings = Object.freeze({
  loopback: "transport: { dangerouslyAllowLoopback: true }",
  timeout: "transport.timeoutMs",
  maxResponseBytes: "transport.maxResponseBytes",
});

/** The server's origin, or `stdio` for a server run over stdio. */
function whereOf(url: URL): string {
  return url.protocol === "stdio:" ? "stdio" : url.origin;
}

const OWNER_SPEC = "or give every allowed tool of this server an owner spec";

/**
 * sluice's explanation of a server failure with `code`, or `undefined` for a code it has no
 * explanation of. Holds the server's origin (the host's own configuration), never server text.
 *
 * @param code the server's failure code
 * @param url the server's URL as configured
 * @param settings how the settings are spelled for the reader
 *
 * @category Agent developers: connect()
 */
export function failureHint(
  code: string,
  url: URL,
  settings: FailureSettings = CONNECT_SETTINGS,
): string | undefined {
  const origin = whereOf(url);
  switch (code) {
    case "stdio_unsupported_runtime":
      return "this runtime cannot start processes (Workers, browsers): reach the server over " +
        "Streamable HTTP instead";
    case "stdio_spawn_failed":
      return "check the command (an absolute path, or a name on the PATH in env or inheritEnv) " +
        "and, on Deno, --allow-run for it";
    case "stdio_frame_too_large":
      return "the server wrote a stdout line over the cap: raise maxFrameBytes of its entry";
    case "stdio_invalid_message":
      return "the server wrote something other than JSON-RPC on stdout (logs belong on " +
        "stderr; its tail is in report().servers[].stdio)";
    case "stdio_server_exited":
      return "the server exited: its exit status and the tail of its stderr are in " +
        "report().servers[].stdio";
    case "transport_failed":
      return `nothing answered at ${origin} (connection refused or reset, or the reply was cut ` +
        "short): check that the server is running and the URL is right";
    case "transport_timeout":
    case "mcp_timeout":
      return `${origin} did not answer in time: check the server, or raise ${settings.timeout}`;
    case "transport_permission_denied":
      return `the runtime refused network access to ${url.host} (Deno: --allow-net for it, and ` +
        "for a host name the DNS servers too; see docs/permissions.md)";
    case "transport_scheme_refused":
    case "transport_ip_literal_refused":
    case "transport_host_refused":
      if (needsLoopbackOption(url)) {
        return `a server on this machine (loopback) is reached only with ${settings.loopback} ` +
          "(local development and tests only)";
      }
      return code === "transport_scheme_refused"
        ? "use an https URL (plain http reaches only loopback, with the loopback option)"
        : code === "transport_ip_literal_refused"
        ? "use the server's host name, not an IP address"
        : "this host name is refused (a cloud metadata name)";
    case "transport_address_refused":
      return "the host name resolves to a non-public address: use a public host";
    case "transport_dns_failed":
      return "the host name does not resolve: check the URL";
    case "transport_tls_failed":
      return "the server's certificate is not trusted or not valid for its host";
    case "transport_redirect_refused":
      return "the server answered with a redirect, which sluice never follows: configure the " +
        "URL it redirects to";
    case "transport_userinfo_refused":
      return "remove the user name and password from the URL and pass the credential as a token";
    case "transport_encoding_refused":
      return "the server sent a compressed body, which sluice refuses: turn compression off " +
        "for this endpoint";
    case "transport_response_too_large":
      return settings.maxResponseBytes === undefined
        ? "the server's answer is over the response byte cap"
        : `raise ${settings.maxResponseBytes}, ${OWNER_SPEC}`;
    case "mcp_handshake_failed":
      if (url.protocol === "stdio:") return "the stdio server did not complete the MCP handshake";
      return `${origin} answered, but not as an MCP Streamable HTTP endpoint: check the URL's ` +
        "path (often /mcp)";
    case "mcp_protocol_version_unsupported":
      return "the server speaks no protocol version this connection accepts (2026-07-28, " +
        "2025-11-25, 2025-06-18; add 2025-03-26 with legacyProtocolVersions)";
    case "mcp_aborted":
      return "the caller's signal aborted the set-up";
    case "mcp_catalog_too_large":
      return `raise limits.maxCatalogBytes (up to 32 MiB, with transport.maxResponseBytes), ${OWNER_SPEC}`;
    case "mcp_too_many_tools":
      return `raise limits.maxTools (up to 10,000), ${OWNER_SPEC}`;
    case "mcp_too_many_pages":
      return `raise limits.maxPages (up to 1,000), ${OWNER_SPEC}`;
    case "auth_authorization_required":
      return "a person must authorize sluice at this server first: run `sluice login " +
        `${origin}${url.pathname}\`, or open the URL the OAuthClient's redirect() received and ` +
        "pass the callback to auth.finish(); then connect again (connection.reconnect(id) in " +
        "a running connection)";
    case "auth_token_failed":
      return "the authorization server refused the token request (a refresh token revoked or " +
        "expired): authorize again";
    case "auth_registration_failed":
      return "the authorization server registered no client (neither dynamic registration nor " +
        "client ID metadata documents worked)";
    case "auth_metadata_refused":
    case "auth_metadata_invalid":
    case "auth_issuer_mismatch":
      return "the server's OAuth metadata was refused (see docs/oauth.md)";
    case "auth_unauthorized":
      return "the server refused a fresh access token too: check the token's audience and scope";
    case "auth_insufficient_scope":
      return "the server wants more scope: authorize again with the scopes " +
        "OAuthClient.scopeNeeded(url) names";
    case "auth_store_failed":
      return "the token store could not be read or written (or the key does not open it)";
  }
  return undefined;
}

/**
 * sluice's explanation for a tool skipped because its whole server failed.
 *
 * @param code the server's failure code
 * @param url the server's URL as configured
 *
 * @category Agent developers: connect()
 */
export function serverSkipReason(code: string, url: URL): string {
  const hint = failureHint(code, url);
  return `the server could not be set up or listed (${code})` + (hint ? `: ${hint}` : "");
}

/**
 * A failed server's `reason` in `report()`: the explanation, or a plain statement for a code
 * without one.
 *
 * @param code the server's failure code
 * @param url the server's URL as configured
 *
 * @category Agent developers: connect()
 */
export function serverFailureReason(code: string, url: URL): string {
  return failureHint(code, url) ?? `the server could not be set up or listed (${code})`;
}

/** One failed server as `ConnectError` is built from it. */
export interface FailedServer {
  readonly id: string;
  readonly url: URL;
  readonly code: SluiceCode;
  /** What was thrown, kept as the error's `cause` and for its transport message. */
  readonly error?: unknown;
}

/** Codes whose own error message says more than the explanation: what to allow, scopes. */
const DETAILED: ReadonlySet<string> = new Set([
  "transport_permission_denied",
  "transport_address_refused",
  "auth_insufficient_scope",
  "stdio_server_exited",
  "stdio_spawn_failed",
]);

/**
 * For a code in {@link DETAILED}, the message of the innermost sluice error along `error`'s
 * causes that carries it (the transport's own words name the exact `--allow-net` target).
 */
function detailOf(error: unknown, code: string): string | undefined {
  if (!DETAILED.has(code)) return undefined;
  let detail: string | undefined;
  let current = error;
  // Bounded walk: a cause chain can be cyclic.
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (current instanceof SluiceError && current.code === code) detail = current.message;
    current = current.cause;
  }
  return detail;
}

/**
 * The `ConnectError` for servers that failed: `code` is the first one's, the message names
 * each server, its origin, code and explanation.
 *
 * @param failed the failed servers, in configuration order
 *
 * @category Agent developers: connect()
 */
export function connectErrorOf(failed: readonly FailedServer[]): ConnectError {
  const failures: ServerFailure[] = failed.map((item) => ({
    server: item.id,
    code: item.code,
    reason: serverFailureReason(item.code, item.url),
  }));
  const parts = failed.map((item, index) => {
    const detail = detailOf(item.error, item.code);
    const reason = failures[index].reason;
    return `server "${item.id}" at ${whereOf(item.url)}: ${item.code}: ${reason}` +
      (detail !== undefined ? ` (${detail})` : "");
  });
  const message = failed.length === 1
    ? `connect: ${parts[0]}`
    : `connect: ${failed.length} servers could not be set up: ${parts.join("; ")}`;
  return new ConnectError(failures, message, { cause: failed[0].error });
}
