/**
 * The answer to a request over a client's rate limit: HTTP 429 with `Retry-After`, and a
 * JSON-RPC error naming `serve_rate_limited` for the request's id, so both a proxy and an MCP
 * client can tell what happened and when to try again.
 *
 * @module
 */

/**
 * The JSON-RPC error code of a rate-limited request (implementation-defined server error range).
 *
 * @category sluice serve
 */
export const RATE_LIMITED_JSONRPC_CODE: -32029 = -32029;

/**
 * The 429 response for `request`. The request's id is read from its body when the body's length
 * was declared (within `maxBodyBytes`, checked before); otherwise, or for a batch or a body that
 * is not JSON, the id is `null`.
 *
 * @param request the refused request
 * @param waitMs milliseconds until the client's next token
 * @param declared whether the body's length was declared
 *
 * @category sluice serve
 */
export async function rateLimited(
  request: Request,
  waitMs: number,
  declared: boolean,
): Promise<Response> {
  const id = declared ? idOf(await request.json().catch(() => null)) : null;
  const body = {
    jsonrpc: "2.0",
    id,
    error: {
      code: RATE_LIMITED_JSONRPC_CODE,
      message: "serve_rate_limited: this client is over its request rate; try again later",
      data: { errorCode: "serve_rate_limited", retryAfterMs: waitMs },
    },
  };
  return new Response(JSON.stringify(body), {
    status: 429,
    headers: {
      "content-type": "application/json",
      "retry-after": String(Math.max(1, Math.ceil(waitMs / 1000))),
    },
  });
}

function idOf(message: unknown): string | number | null {
  const id = (message as { id?: unknown } | null)?.id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}
