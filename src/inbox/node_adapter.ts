/**
 * `toNodeListener`: mounts a Web-standard handler (the inbox) in Node's `http.createServer`.
 * Written against the shapes of Node's request and response, so the core imports nothing from
 * Node.
 *
 * @module
 */
import type { InboxHandler } from "./approval_inbox.ts";

/**
 * The parts of Node's `IncomingMessage` the adapter reads.
 *
 * @category Approval inbox
 */
export interface NodeRequestLike extends AsyncIterable<Uint8Array> {
  /** The HTTP method. */
  readonly method?: string;
  /** The path and query. */
  readonly url?: string;
  /** The request headers, lower-cased. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The socket; a TLS socket has `encrypted: true`. */
  readonly socket?: object;
}

/**
 * The parts of Node's `ServerResponse` the adapter writes.
 *
 * @category Approval inbox
 */
export interface NodeResponseLike {
  /** The status code to send. */
  statusCode: number;
  /** Sets one header (an array for `set-cookie`). */
  setHeader(name: string, value: string | string[]): unknown;
  /** Sends the body and ends the response. */
  end(body?: Uint8Array): unknown;
}

/**
 * Wraps `handler` as a Node request listener. The request's origin is taken from its `Host`
 * header and whether the socket is TLS.
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import type { ApprovalStore } from "@sluice/mcp";
 * import { approvalInbox, toNodeListener } from "@sluice/mcp/inbox";
 * declare const store: ApprovalStore, authorize: (request: Request) => string | undefined;
 *
 * createServer(toNodeListener(approvalInbox({ store, authorize }))).listen(8787, "127.0.0.1");
 * ```
 *
 * @param handler the Web-standard handler
 *
 * @category Approval inbox
 */
export function toNodeListener(
  handler: InboxHandler,
): (request: NodeRequestLike, response: NodeResponseLike) => Promise<void> {
  return async (request, response) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (value === undefined) continue;
      for (const item of typeof value === "string" ? [value] : value) headers.append(name, item);
    }
    const tls = (request.socket as { encrypted?: unknown } | undefined)?.encrypted === true;
    const scheme = tls ? "https" : "http";
    const url = new URL(request.url ?? "/", `${scheme}://${headers.get("host") ?? "localhost"}`);
    const method = request.method ?? "GET";
    // The body streams through; the handler bounds what it reads.
    const body = method === "GET" || method === "HEAD" ? undefined : ReadableStream.from(request);
    const answer = await handler(
      new Request(url, { method, headers, body, ...(body ? { duplex: "half" } : {}) }),
    );
    response.statusCode = answer.status;
    for (const [name, value] of answer.headers) {
      if (name !== "set-cookie") response.setHeader(name, value);
    }
    const cookies = answer.headers.getSetCookie();
    if (cookies.length > 0) response.setHeader("set-cookie", cookies);
    response.end(new Uint8Array(await answer.arrayBuffer()));
  };
}
