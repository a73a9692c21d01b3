/**
 * What the inbox answers with: an HTML page under strict security headers, or a refusal with a
 * status and a code that the handler renders as a page.
 *
 * @module
 */
import type { InboxErrorCode } from "./errors.ts";

const HTML_TYPE = "text/html; charset=utf-8";

/** The security headers of every response, with the nonce of its one script and style. */
export function securityHeaders(nonce: string): Headers {
  return new Headers({
    "content-type": HTML_TYPE,
    "content-security-policy": [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src 'nonce-${nonce}'`,
      "connect-src 'self'",
      "form-action 'self'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
    ].join("; "),
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "cache-control": "no-store",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
  });
}

/** An HTML page with `status` under the security headers of `nonce`. */
export function pageResponse(body: string, nonce: string, status = 200): Response {
  return new Response(body, { status, headers: securityHeaders(nonce) });
}

/** A request the inbox refuses: thrown by any route, rendered by the handler. */
export class Refusal {
  readonly status: number;
  readonly code: InboxErrorCode | string;
  readonly message: string;
  constructor(status: number, code: InboxErrorCode | string, message: string) {
    this.status = status;
    this.code = code;
    this.message = message;
  }
}
