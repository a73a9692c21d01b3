/**
 * What went wrong with a request, as a {@link TransportError}: the deadline or the caller's abort,
 * a permission Deno refused, a TLS failure, or any other failure before a complete response. Only
 * the runtime's own error text is read, to pick a code; it is never copied.
 *
 * @module
 */
import { TransportError } from "./errors.ts";

// URLs and quoted names are removed first so a host called "tls.example" is not a TLS error.
// Besides certificates, the TLS library's own words for a peer that speaks no TLS at all (junk
// or plain HTTP where a handshake belongs): rustls (Deno) says "received corrupt message" or
// "received fatal alert"; OpenSSL (Node) says "wrong version number" under an SSL code.
const TLS_PATTERN =
  /certificate|tls|ssl|handshake|CERT_|ALTNAME|corrupt message|fatal alert|peer is incompatible|peer misbehaved|wrong version number/i;
const NAMES_IN_MESSAGE = /[a-z][a-z0-9+.-]*:\/\/[^\s)]*|"[^"]*"|'[^']*'/gi;
function looksLikeTls(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    const message = current.message.replace(NAMES_IN_MESSAGE, "");
    if (TLS_PATTERN.test(message) || (typeof code === "string" && TLS_PATTERN.test(code))) {
      return true;
    }
    current = current.cause;
  }
  return false;
}

/** Whether the runtime itself refused the operation for want of a permission (Deno). */
export function isPermissionRefusal(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    // Deno 2 throws `Deno.errors.NotCapable` when a permission flag is missing.
    if (current.name === "NotCapable") return true;
    current = current.cause;
  }
  return false;
}

/** `host:port` as `--allow-net` takes it, from the caller's own URL. */
function netTarget(url: URL): string {
  const port = url.port !== "" ? url.port : url.protocol === "https:" ? "443" : "80";
  return `${url.hostname}:${port}`;
}

function permissionDenied(destination: URL): TransportError {
  const target = netTarget(destination);
  return new TransportError(
    "transport_permission_denied",
    `Deno refused network access to ${target}: run with --allow-net=${target} ` +
      "(see docs/permissions.md).",
  );
}

/** Deno refused the resolver's own look-up: the flags it needs. */
export function resolverPermissionDenied(destination: URL): TransportError {
  const target = netTarget(destination);
  return new TransportError(
    "transport_permission_denied",
    `Deno refused network access while checking the addresses of ${destination.hostname}: ` +
      `Deno.resolveDns asks the system's DNS servers, so run with --allow-net=${target} and ` +
      "each DNS server (its address, port 53), or pass transport.resolve " +
      "(see docs/permissions.md).",
  );
}

/**
 * Why the request's deadline signal (the caller's signal and the timeout, one signal) aborted:
 * its reason is the caller's own when the caller aborted first.
 */
function stopFailure(
  signal: AbortSignal,
  callerSignal: AbortSignal | undefined,
): TransportError | undefined {
  if (!signal.aborted) return undefined;
  if (callerSignal?.aborted && signal.reason === callerSignal.reason) {
    return new TransportError("transport_aborted", "The caller aborted the request.");
  }
  return new TransportError("transport_timeout", "The request did not complete in time.");
}

/** The error a failed request ends with, its code picked from what failed. */
export function toTransportError(
  error: unknown,
  signal: AbortSignal,
  callerSignal: AbortSignal | undefined,
  destination: URL | undefined,
): TransportError {
  if (error instanceof TransportError) return error;
  const stopped = stopFailure(signal, callerSignal);
  if (stopped !== undefined) return stopped;
  if (destination !== undefined && isPermissionRefusal(error)) return permissionDenied(destination);
  // Only an https request has a TLS layer that could have failed.
  if (destination?.protocol === "https:" && looksLikeTls(error)) {
    return new TransportError(
      "transport_tls_failed",
      "The TLS connection failed: the certificate is not trusted or not valid for the host.",
    );
  }
  return new TransportError(
    "transport_failed",
    "The request failed before a complete response arrived.",
  );
}
