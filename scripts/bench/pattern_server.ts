/**
 * A hostile MCP server for the pattern benchmark and its test: the official v2 SDK server
 * (`createMcpHandler` over a low-level `Server`, which sends whatever it is told) in
 * `Deno.serve` on 127.0.0.1, inside a Worker so that its event loop is not the client's. Each
 * case is one read tool whose `outputSchema` puts the case's `pattern` on a string property
 * and whose every call returns that string, adversarial and long, as `structuredContent`: the
 * client validating the result is what a backtracking engine would stall on.
 *
 * ```ts ignore
 * const server = await startPatternServer([{ pattern: "^(a+)+$", value: "a".repeat(9) + "!" }]);
 * // connect(server.url, { allow: ["p0"], ... }); then await server.close();
 * ```
 *
 * @module
 */
import { type CallToolResult, createMcpHandler, Server } from "@modelcontextprotocol/server";

/** One tool of the hostile server: the pattern its output schema declares, the value it sends. */
export interface PatternCase {
  readonly pattern: string;
  readonly value: string;
}

/** The running server. */
export interface PatternServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** Stops the server and its Worker. */
  close(): Promise<void>;
}

/** The tool name of case `index`. */
export const patternToolName = (index: number): string => `p${index}`;

/** The tools/list entry of case `index`. */
function toolFor(pattern: string, index: number): Record<string, unknown> {
  return {
    name: patternToolName(index),
    description: `Returns a string that its output schema constrains with pattern ${index}.`,
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    outputSchema: {
      type: "object",
      properties: { value: { type: "string", pattern } },
      required: ["value"],
    },
    annotations: { readOnlyHint: true },
  };
}

/**
 * Starts the server in a Worker and waits for its address.
 *
 * @param cases one tool per case, named {@link patternToolName}(index)
 */
export async function startPatternServer(cases: readonly PatternCase[]): Promise<PatternServer> {
  const worker = new Worker(import.meta.url, { type: "module" });
  const listening = new Promise<string>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<{ url: string }>) => resolve(event.data.url);
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(`the pattern server failed: ${event.message}`));
    };
  });
  worker.postMessage({ start: cases });
  const url = await listening;
  return {
    url,
    close: async () => {
      const stopped = new Promise<void>((resolve) => {
        worker.onmessage = () => resolve();
      });
      worker.postMessage({ stop: true });
      await stopped;
      worker.terminate();
    },
  };
}

/** The Worker side: serve the cases until told to stop. */
function serveInWorker(scope: {
  onmessage: ((event: MessageEvent) => void) | null;
  postMessage(message: unknown): void;
}): void {
  let stop: (() => Promise<void>) | undefined;
  scope.onmessage = async (event: MessageEvent<{ start?: PatternCase[]; stop?: true }>) => {
    if (event.data.stop) {
      await stop?.();
      scope.postMessage({ stopped: true });
      return;
    }
    const cases = event.data.start ?? [];
    const tools = cases.map((item, index) => toolFor(item.pattern, index));
    const values = new Map(cases.map((item, index) => [patternToolName(index), item.value]));
    const handler = createMcpHandler(() => {
      const server = new Server({ name: "sluice-hostile-patterns", version: "1.0.0" }, {
        capabilities: { tools: {} },
      });
      server.setRequestHandler("tools/list", () => ({ tools }) as never);
      server.setRequestHandler("tools/call", (request) =>
        ({
          content: [{ type: "text", text: "see structuredContent" }],
          structuredContent: { value: values.get(request.params.name) ?? "" },
        }) satisfies CallToolResult);
      return server;
    }, { onerror: () => {} });
    const http = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen: ({ port }) => scope.postMessage({ url: `http://127.0.0.1:${port}/mcp` }),
    }, (request) => handler.fetch(request));
    stop = async () => {
      await handler.close();
      await http.shutdown();
    };
  };
}

// Only inside the Worker: the main side loads this module for its exports.
if (typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== "undefined") {
  serveInWorker(globalThis as unknown as Parameters<typeof serveInWorker>[0]);
}
