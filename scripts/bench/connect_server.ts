/**
 * The server of the `connect` benchmark, run as its own process so that the client's CPU time
 * is measured apart from the server's: the official v2 SDK server (`createMcpHandler` over a
 * low-level `Server`) in `Deno.serve` on 127.0.0.1, serving the 2026-07-28 revision.
 *
 * - `/calls`: three tools, `small` (a 1 KiB text result), `medium` (32 KiB) and `large` (64 KiB).
 * - `/catalog`: the generated 188-tool, ~1 MiB list of `large_list.ts` (calls answer `ok`).
 * - `/lists/<name>`: with a `lists.json` argument (`{ <name>: tools }`), each list.
 *
 * `deno run --allow-net=127.0.0.1 --allow-read --allow-env scripts/bench/connect_server.ts
 * [lists.json]` prints `LISTENING <origin>` and serves until SIGTERM or its stdin closes.
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
  medium: "m".repeat(32 * 1024),
  large: "l".repeat(64 * 1024),
});

/** The `/calls` tools, as the server lists them. */
export const CALL_TOOLS = Object.keys(CALL_RESULTS).map((name) => ({
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

/** A running benchmark server process. */
export interface ConnectServer {
  /** `http://127.0.0.1:<port>`; the endpoints are `/calls` and `/catalog`. */
  readonly origin: string;
  /** Stops the process and waits for it to exit. */
  close(): Promise<void>;
}

/**
 * In a benchmark server process: runs `close` and exits on SIGTERM or when the parent closes
 * stdin (the parent holds it open; when it goes away, so does the server).
 *
 * @param close stops serving
 */
export function stopOnParentExit(close: () => Promise<void>): void {
  const stop = async () => {
    await close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGTERM", stop);
  (async () => {
    for await (const _ of Deno.stdin.readable) { /* drain */ }
    await stop();
  })();
}

/** Starts this module as a child process and waits for its address. */
export function startConnectServer(listsFile?: string): Promise<ConnectServer> {
  return startBenchProcess(import.meta.url, listsFile === undefined ? [] : [listsFile]);
}

/**
 * Starts a benchmark server module as a child process (loopback network, read and env access)
 * that prints `LISTENING <origin>` and stops when its stdin closes; waits for its address.
 *
 * @param module the module's URL
 * @param args its arguments
 */
export async function startBenchProcess(
  module: string,
  args: readonly string[],
): Promise<ConnectServer> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--allow-net=127.0.0.1",
      "--allow-read",
      "--allow-env",
      new URL(module).pathname,
      ...args,
    ],
    cwd: new URL("../../", import.meta.url).pathname,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  while (!buffered.includes("\n")) {
    const { value, done } = await lines.read();
    if (done) throw new Error("the benchmark server exited before listening");
    buffered += value;
  }
  const match = /LISTENING (\S+)/.exec(buffered);
  if (match === null) throw new Error(`unexpected server output: ${buffered}`);
  lines.releaseLock();
  child.stdout.cancel().catch(() => {});
  return {
    origin: match[1],
    close: async () => {
      // Closing stdin stops the server; SIGTERM if it does not go within 5 s.
      await child.stdin.close().catch(() => {});
      const timer = setTimeout(() => {
        try {
          child.kill("SIGTERM");
        } catch { /* already gone */ }
      }, 5_000);
      await child.status;
      clearTimeout(timer);
    },
  };
}

if (import.meta.main) {
  const dir = corpusDir(new URL("../../", import.meta.url));
  const catalog = dir === undefined ? [] : largeToolList(dir);
  const handlers: Record<string, ReturnType<typeof createMcpHandler>> = {
    "/calls": createMcpHandler(() => serverFor(CALL_TOOLS), { onerror: () => {} }),
    "/catalog": createMcpHandler(() => serverFor(catalog), { onerror: () => {} }),
  };
  // `lists.json`: `{ <name>: tools }`, each served at `/lists/<name>`.
  const listsFile = Deno.args[0];
  if (listsFile !== undefined) {
    const lists = JSON.parse(Deno.readTextFileSync(listsFile)) as Record<
      string,
      Record<string, unknown>[]
    >;
    for (const [name, tools] of Object.entries(lists)) {
      handlers[`/lists/${name}`] = createMcpHandler(() => serverFor(tools), { onerror: () => {} });
    }
  }
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: (addr) => console.log(`LISTENING http://127.0.0.1:${addr.port}`),
  }, (request) => {
    const handler = handlers[new URL(request.url).pathname];
    return handler === undefined ? new Response(null, { status: 404 }) : handler.fetch(request);
  });
  stopOnParentExit(async () => {
    await Promise.all(Object.values(handlers).map((handler) => handler.close()));
    await server.shutdown();
  });
}
