/**
 * The server of the `connect` benchmark, run as its own process so that the client's CPU time
 * is measured apart from the server's: the official v2 SDK server (`createMcpHandler` over a
 * low-level `Server`) in `Deno.serve` on 127.0.0.1, serving the 2026-07-28 revision.
 *
 * - `/calls`: two tools, `small` (a 1 KiB text result) and `large` (a 64 KiB text result).
 * - `/catalog`: the generated 188-tool, ~1 MiB list of `large_list.ts` (calls answer `ok`).
 *
 * `deno run --allow-net=127.0.0.1 --allow-read --allow-env scripts/bench/connect_server.ts`
 * prints `LISTENING <origin>` and serves until SIGTERM or its stdin closes.
 *
 * @module
 */
import {
  type CallToolResult,
  createMcpHandler,
  type ListToolsResult,
  Server,
} from "@modelcontextprotocol/server";
import { corpusDir, largeToolList } from "./large_list.ts";

/** The text results of the `/calls` tools, by tool name. */
export const CALL_RESULTS: Readonly<Record<string, string>> = Object.freeze({
  small: "s".repeat(1024),
  large: "l".repeat(64 * 1024),
});

const CALL_TOOLS = Object.keys(CALL_RESULTS).map((name) => ({
  name,
  description: `Returns ${CALL_RESULTS[name].length} bytes of text.`,
  inputSchema: {
    type: "object",
    properties: { query: { type: "string", maxLength: 256 } },
    required: ["query"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true },
}));

function serverFor(tools: readonly Record<string, unknown>[]): Server {
  const server = new Server({ name: "sluice-bench", version: "1.0.0" }, {
    capabilities: { tools: {} },
  });
  server.setRequestHandler("tools/list", () => ({ tools }) as unknown as ListToolsResult);
  server.setRequestHandler("tools/call", (request) => {
    const text = CALL_RESULTS[request.params.name] ?? "ok";
    return { content: [{ type: "text", text }] } satisfies CallToolResult;
  });
  return server;
}

if (import.meta.main) {
  const dir = corpusDir(new URL("../../", import.meta.url));
  const catalog = dir === undefined ? [] : largeToolList(dir);
  const handlers = {
    "/calls": createMcpHandler(() => serverFor(CALL_TOOLS), { onerror: () => {} }),
    "/catalog": createMcpHandler(() => serverFor(catalog), { onerror: () => {} }),
  };
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: (addr) => console.log(`LISTENING http://127.0.0.1:${addr.port}`),
  }, (request) => {
    const handler = handlers[new URL(request.url).pathname as keyof typeof handlers];
    return handler === undefined ? new Response(null, { status: 404 }) : handler.fetch(request);
  });
  const stop = async () => {
    await Promise.all(Object.values(handlers).map((handler) => handler.close()));
    await server.shutdown();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGTERM", stop);
  // The parent holds stdin open; when it goes away, so does the server.
  (async () => {
    for await (const _ of Deno.stdin.readable) { /* drain */ }
    await stop();
  })();
}
