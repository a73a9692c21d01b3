// Real loopback servers for the transport tests: Deno.serve for well-formed HTTP, raw TCP for
// byte-level misbehaviour. Every server listens on 127.0.0.1 port 0 and is closed in `finally`.

/** An HTTP server on 127.0.0.1 with an ephemeral port and a request log. */
export interface HttpServer {
  readonly port: number;
  readonly origin: string;
  /** Headers of every request the server received, in order. */
  readonly requests: Headers[];
  close(): Promise<void>;
}

/** Starts `handler` on 127.0.0.1, optionally with TLS. */
export function startHttpServer(
  handler: (request: Request) => Response | Promise<Response>,
  tls?: { cert: string; key: string },
): HttpServer {
  const requests: Headers[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {}, ...(tls ?? {}) },
    (request) => {
      requests.push(request.headers);
      return handler(request);
    },
  );
  const port = server.addr.port;
  return {
    port,
    origin: `${tls ? "https" : "http"}://127.0.0.1:${port}`,
    requests,
    async close() {
      await server.shutdown();
    },
  };
}

/** A raw TCP server on 127.0.0.1 that counts accepted connections and runs `onConnection`. */
export interface RawServer {
  readonly port: number;
  /** Number of TCP connections accepted so far. */
  accepted(): number;
  close(): Promise<void>;
}

/**
 * Starts a raw TCP server. `onConnection` gets each connection and a signal that aborts when the
 * server closes; the server closes every connection itself and waits for every handler.
 */
export function startRawServer(
  onConnection: (conn: Deno.TcpConn, signal: AbortSignal) => Promise<void>,
): RawServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const stop = new AbortController();
  const conns = new Set<Deno.TcpConn>();
  const handlers: Promise<void>[] = [];
  let count = 0;
  const loop = (async () => {
    try {
      for await (const conn of listener) {
        count++;
        conns.add(conn);
        handlers.push(onConnection(conn, stop.signal).catch(() => {}));
      }
    } catch {
      // The listener was closed.
    }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    accepted: () => count,
    async close() {
      stop.abort();
      listener.close();
      await loop;
      for (const conn of conns) {
        try {
          conn.close();
        } catch {
          // Already closed by its handler.
        }
      }
      await Promise.all(handlers);
    },
  };
}

/** Resolves after `ms`, or at once when `signal` aborts (so drip loops stop promptly). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** Reads a response body to the end and returns its byte count; rethrows the stream's error. */
export async function drain(response: Response): Promise<number> {
  let total = 0;
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return total;
    total += value.byteLength;
  }
}

/** A resolver built from a fixed table; records every name it was asked about. */
export function tableResolver(table: Record<string, readonly string[] | Error>): {
  resolve: (hostname: string) => Promise<readonly string[]>;
  asked: string[];
} {
  const asked: string[] = [];
  return {
    asked,
    resolve(hostname) {
      asked.push(hostname);
      const answer = table[hostname];
      if (answer === undefined) return Promise.reject(new Error("no such name in test table"));
      if (answer instanceof Error) return Promise.reject(answer);
      return Promise.resolve(answer);
    },
  };
}
