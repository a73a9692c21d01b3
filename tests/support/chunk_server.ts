/**
 * A loopback server whose body is many tiny chunks, for the body-reading test and benchmark.
 *
 * @module
 */

/** The chunk every response is made of. */
export const CHUNK: Uint8Array = new TextEncoder().encode("abc");

/** A running chunk server. */
export interface ChunkServer {
  /** The URL that answers with `count` chunks. */
  url(count: number): string;
  close(): Promise<void>;
}

/** Serves `?n=<count>` as `count` chunks of 3 bytes (chunked encoding, one frame each). */
export function startChunkServer(): ChunkServer {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const count = Number(new URL(request.url).searchParams.get("n"));
    let sent = 0;
    return new Response(
      new ReadableStream<Uint8Array>({
        pull(controller) {
          for (let i = 0; i < 64 && sent < count; i++, sent++) controller.enqueue(CHUNK.slice());
          if (sent >= count) controller.close();
        },
      }),
    );
  });
  return {
    url: (count) => `http://127.0.0.1:${server.addr.port}/?n=${count}`,
    close: () => server.shutdown(),
  };
}
