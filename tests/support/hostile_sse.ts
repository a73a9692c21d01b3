// Hostile Server-Sent Events replies for the connect() suites: an SSE body written part by
// part, that records when its offending bytes left and then stays open (until the test
// releases it), so a client that notices nothing waits for its whole deadline. Also a proxy
// that puts such replies in front of a real v2 server for chosen JSON-RPC methods, so the
// 2026-07-28 handshake and discovery stay real. Shared by tests/transport/sse_reply_test.ts
// and scripts/bench/sse_faults.ts.
import { startHttpServer } from "../../fixtures/read_server_http.ts";
import { result, startScriptedServer, tool } from "./connect_servers.ts";

/** One SSE reply as the server wrote it. */
export interface SseReply {
  /** The Response to hand back from a server handler. */
  readonly response: Response;
  /** Resolves with `performance.now()` right after the last part was enqueued. */
  readonly written: Promise<number>;
}

/**
 * An SSE reply: `parts` are enqueued one after another (each as its own chunk), then the body
 * stays open until `hold` aborts (or the reader cancels it).
 *
 * @param parts raw body text, each part one chunk
 * @param hold releases (closes) the body
 */
export function sseReply(parts: readonly string[], hold: AbortSignal): SseReply {
  const encoder = new TextEncoder();
  const { promise: written, resolve } = Promise.withResolvers<number>();
  let release: (() => void) | undefined;
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const [index, part] of parts.entries()) {
        controller.enqueue(encoder.encode(part));
        if (index === parts.length - 1) break;
        // Let the part leave before the next one is written.
        await new Promise((next) => setTimeout(next, 1));
      }
      resolve(performance.now());
      const closed = () => {
        try {
          controller.close();
        } catch {
          // Already cancelled by the reader.
        }
      };
      if (hold.aborted) return closed();
      release = closed;
      hold.addEventListener("abort", closed, { once: true });
    },
    cancel() {
      if (release) hold.removeEventListener("abort", release);
    },
  });
  return {
    response: new Response(body, { headers: { "content-type": "text/event-stream" } }),
    written,
  };
}

/** One SSE `message` event carrying `data` (a JSON-RPC message, or anything for hostility). */
export function sseEvent(data: string): string {
  return `event: message\ndata: ${data}\n\n`;
}

/** A JSON-RPC result for request `id`, as text. */
export function resultText(id: unknown, value: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, result: value });
}

/** What the proxy hands an interceptor: the parsed JSON-RPC request. */
export interface InterceptedRequest {
  readonly method: string;
  readonly id: unknown;
  readonly params: Record<string, unknown>;
}

/** A running intercepting proxy. */
export interface HostileProxy {
  readonly url: URL;
  close(): Promise<void>;
}

/**
 * Starts a proxy on 127.0.0.1 that forwards every request to `target` unchanged, except POSTs
 * whose JSON-RPC method has an interceptor: those are answered by the interceptor instead.
 *
 * @param target the real server's endpoint
 * @param intercept answers by JSON-RPC method
 */
export function startHostileProxy(
  target: URL,
  intercept: Record<string, (request: InterceptedRequest) => Response | Promise<Response>>,
): HostileProxy {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const body = request.method === "POST" ? await request.text() : undefined;
    if (body !== undefined) {
      let message: Record<string, unknown> | undefined;
      try {
        const parsed = JSON.parse(body);
        message = Array.isArray(parsed) ? parsed[0] : parsed;
      } catch {
        message = undefined;
      }
      const handler = message ? intercept[String(message.method)] : undefined;
      if (handler && message) {
        return await handler({
          method: String(message.method),
          id: message.id,
          params: (message.params ?? {}) as Record<string, unknown>,
        });
      }
    }
    const headers = new Headers(request.headers);
    headers.delete("host");
    const upstream = await fetch(new URL(target.pathname, target), {
      method: request.method,
      headers,
      ...(body !== undefined ? { body } : {}),
    });
    return new Response(upstream.body, { status: upstream.status, headers: upstream.headers });
  });
  return {
    url: new URL(`http://127.0.0.1:${server.addr.port}${target.pathname}`),
    close: () => server.shutdown(),
  };
}

/** The two ways a reply breaks the rules: over the byte cap, or an event that is not JSON. */
export type Hostility = "too large" | "not json";

/** The two protocol eras a hostile server can speak. */
export type Era = "2025-11-25" | "2026-07-28";

/**
 * The parts of a reply for request `id` that breaks the rule named by `hostility`; the over-cap
 * one is a valid reply whose event ends only after a comment line that crosses `cap`.
 */
export function hostileParts(
  hostility: Hostility,
  id: unknown,
  value: unknown,
  cap: number,
): string[] {
  if (hostility === "not json") return [": priming\n\n", sseEvent("{ this is not json")];
  const event = sseEvent(resultText(id, value));
  return [event.slice(0, -1), `: ${"x".repeat(cap)}\n\n`];
}

/** A running hostile server. */
export interface HostileTarget {
  readonly url: URL;
  close(): Promise<void>;
}

/**
 * A server of `era` whose `method` answers come from `answer` (a scripted 2025 server listing
 * one `echo` tool, or a proxy in front of the real 2026-07-28 fixture server).
 */
export async function hostileServer(
  era: Era,
  method: string,
  answer: (request: InterceptedRequest) => SseReply,
): Promise<HostileTarget> {
  if (era === "2025-11-25") {
    return startScriptedServer({
      [method]: (request) => answer(request).response,
      "tools/list": method === "tools/list"
        ? (request) => answer(request).response
        : (request) => result(request, { tools: [tool("echo")] }),
    });
  }
  const real = await startHttpServer();
  const proxy = startHostileProxy(real.url, { [method]: (request) => answer(request).response });
  return {
    url: proxy.url,
    async close() {
      await proxy.close();
      await real.close();
    },
  };
}
