/**
 * The `transport` stage of the code catalog (the hardened HTTP transport);
 * `src/codes.ts` assembles the stages.
 *
 * @module
 */
import type { StageCodes } from "./entry.ts";

/**
 * The `transport` stage's codes, each with its meaning: the part of {@link CODES} this stage writes.
 *
 * @category Errors
 */
export const TRANSPORT_CODES = {
  transport_aborted: {
    stage: "transport",
    meaning: "The caller's `AbortSignal` aborted the request.",
  },
  transport_address_refused: {
    stage: "transport",
    meaning: "The name resolved to at least one address that is not public.",
  },
  transport_config_invalid: {
    stage: "transport",
    meaning:
      "The options given to `secureFetch` are inconsistent (for example a token without origin).",
  },
  transport_dns_failed: {
    stage: "transport",
    meaning: "The name could not be resolved, or resolved to nothing.",
  },
  transport_encoding_refused: {
    stage: "transport",
    meaning: "The server sent a compressed body (a `Content-Encoding` other than identity).",
  },
  transport_failed: {
    stage: "transport",
    meaning: "Any other network failure (connection refused, reset, malformed response).",
  },
  transport_host_refused: {
    stage: "transport",
    meaning:
      "The host name itself is refused (cloud metadata names, `localhost` without the option).",
  },
  transport_ip_literal_refused: {
    stage: "transport",
    meaning: "The host is an IP address (any spelling) that is not an allowed loopback address.",
  },
  transport_permission_denied: {
    stage: "transport",
    meaning:
      "The runtime refused network access (Deno without `--allow-net` for the host, the DNS server, or the pinned address and 127.0.0.1).",
  },
  transport_redirect_refused: {
    stage: "transport",
    meaning: "The server answered with a redirect (any 3xx).",
  },
  transport_response_too_large: {
    stage: "transport",
    meaning: "The response body is, or declared it would be, larger than `maxResponseBytes`.",
  },
  transport_scheme_refused: {
    stage: "transport",
    meaning:
      "Not https, or plain http without the loopback option, or http to a non-loopback host.",
  },
  transport_timeout: {
    stage: "transport",
    meaning: "The one deadline over resolution, connection, headers and body passed.",
  },
  transport_tls_failed: {
    stage: "transport",
    meaning:
      "TLS failed: certificate not trusted or not valid for the host name, or no TLS handshake.",
  },
  transport_url_invalid: { stage: "transport", meaning: "The request URL does not parse." },
  transport_userinfo_refused: {
    stage: "transport",
    meaning: "The URL carries a user name or password.",
  },
  stdio_unsupported_runtime: {
    stage: "transport",
    meaning:
      "A stdio server was configured where the runtime has no subprocess API (Workers, browsers).",
  },
  stdio_spawn_failed: {
    stage: "transport",
    meaning:
      "The stdio server's command could not be started (not found, or the runtime refused to run it).",
  },
  stdio_frame_too_large: {
    stage: "transport",
    meaning: "The stdio server wrote a stdout line over `maxFrameBytes`; it was ended.",
  },
  stdio_invalid_message: {
    stage: "transport",
    meaning: "The stdio server wrote a stdout line that is not a JSON-RPC message; it was ended.",
  },
  stdio_server_exited: {
    stage: "transport",
    meaning:
      "The stdio server exited (or was ended by a signal) while in use; the exit status is in the error and `report()`.",
  },
} as const satisfies StageCodes<"transport">;
