// Servers for the connect() suites: a scriptable JSON-RPC server speaking the 2025 handshake
// by default (for protocol-level misbehaviour), and the real server-everything over
// Streamable HTTP on loopback. Every server listens on 127.0.0.1 port 0 and is closed in
// `finally` by the tests.
import { ConnectError, type Connection } from "../../mod.ts";
import { REPO_ROOT } from "./sessions.ts";

/** One JSON-RPC request as the scripted server received it, plus its headers. */
export interface ScriptedRequest {
  readonly method: string;
  readonly id: unknown;
  readonly params: Record<string, unknown>;
  readonly headers: Headers;
}

/** What a scripted handler answers: a Response, or `"stall"` (never answered until close). */
export type ScriptedAnswer = Response | "stall";

/**
 * Per-method handlers; unset methods get the default legacy behaviour. The key `"http:GET"`
 * answers GET requests (default 405: no standalone stream); its request has `method`
 * `"http:GET"`, no id and no params.
 */
export type ScriptedHandlers = Record<
  string,
  (request: ScriptedRequest) => ScriptedAnswer | Promise<ScriptedAnswer>
>;

/** A running scripted server. */
export interface ScriptedServer {
  readonly url: URL;
  /** Every JSON-RPC message received, in order. */
  readonly requests: ScriptedRequest[];
  close(): Promise<void>;
}

/** A JSON-RPC result response for `request`. */
export function result(request: ScriptedRequest, value: unknown): Response {
  return Response.json({ jsonrpc: "2.0", id: request.id, result: value });
}

/** The legacy server's initialize answer, with `protocolVersion` chosen by the test. */
export function initializeResult(protocolVersion = "2025-11-25"): Record<string, unknown> {
  return {
    protocolVersion,
    capabilities: { tools: {} },
    serverInfo: { name: "scripted", version: "1.0.0" },
  };
}

/** A tool entry for a tools/list answer. */
export function tool(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    description: `Tool ${name}.`,
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    ...extra,
  };
}

const DEFAULTS: ScriptedHandlers = {
  // Not a 2026-07-28 server: a plain 400 without JSON-RPC body is a definitive legacy signal.
  "server/discover": () => new Response("no such method", { status: 400 }),
  initialize: (request) => result(request, initializeResult()),
  "notifications/initialized": () => new Response(null, { status: 202 }),
  "tools/list": (request) => result(request, { tools: [tool("echo")] }),
  "tools/call": (request) => result(request, { content: [{ type: "text", text: "ok" }] }),
};

/**
 * Handlers of a scripted server that speaks 2026-07-28: it answers `server/discover`, and
 * every result says `resultType: "complete"` unless a test overrides a method.
 */
export const MODERN_HANDLERS: ScriptedHandlers = {
  "server/discover": (request) =>
    result(request, {
      supportedVersions: ["2026-07-28"],
      capabilities: { tools: {} },
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "scripted", version: "1.0.0" } },
    }),
  "tools/list": (request) =>
    result(request, {
      tools: [tool("echo")],
      resultType: "complete",
      ttlMs: 0,
      cacheScope: "private",
    }),
  "tools/call": (request) =>
    result(request, { content: [{ type: "text", text: "ok" }], resultType: "complete" }),
};

/**
 * Starts a scripted JSON-RPC server on 127.0.0.1. Stalled answers are released (with a 503)
 * when the server closes, so nothing leaks past a test.
 *
 * @param handlers overrides per JSON-RPC method
 */
export function startScriptedServer(handlers: ScriptedHandlers = {}): ScriptedServer {
  const requests: ScriptedRequest[] = [];
  const stop = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      if (request.method === "GET" && handlers["http:GET"] !== undefined) {
        const entry = { method: "http:GET", id: undefined, params: {}, headers: request.headers };
        requests.push(entry);
        const answer = await handlers["http:GET"](entry);
        return answer === "stall" ? new Response(null, { status: 503 }) : answer;
      }
      if (request.method !== "POST") return new Response(null, { status: 405 });
      const body = await request.json().catch(() => undefined);
      const message = Array.isArray(body) ? body[0] : body;
      const entry: ScriptedRequest = {
        method: String(message?.method),
        id: message?.id,
        params: message?.params ?? {},
        headers: request.headers,
      };
      requests.push(entry);
      const handler = handlers[entry.method] ?? DEFAULTS[entry.method];
      if (!handler) return new Response(null, { status: 202 });
      const answer = await handler(entry);
      if (answer !== "stall") return answer;
      await new Promise((resolve) => stop.signal.addEventListener("abort", resolve));
      return new Response(null, { status: 503 });
    },
  );
  return {
    url: new URL(`http://127.0.0.1:${server.addr.port}/mcp`),
    requests,
    async close() {
      stop.abort();
      await server.shutdown();
    },
  };
}

/** A real server process listening on loopback (forced by `fixtures/loopback_listen.ts`). */
export interface LoopbackServer {
  readonly url: URL;
  readonly pid: number;
  /** The server's own child processes (for example the stdio server a proxy spawned). */
  children(): Promise<number[]>;
  /** SIGTERM by PID, then waits for the exit. */
  close(): Promise<void>;
}

/** The real server-everything over Streamable HTTP on loopback. */
export type EverythingHttp = LoopbackServer;

const FIXTURES = new URL("../../fixtures/", import.meta.url).pathname;

/** The direct children of `pid`, from `/proc` (Linux). */
async function childrenOf(pid: number): Promise<number[]> {
  const children: number[] = [];
  try {
    for await (const task of Deno.readDir(`/proc/${pid}/task`)) {
      const text = await Deno.readTextFile(`/proc/${pid}/task/${task.name}/children`)
        .catch(() => "");
      children.push(...text.split(" ").filter((part) => part !== "").map(Number));
    }
  } catch {
    // Gone already.
  }
  return children;
}

/**
 * Starts a fixture under Deno that prints `SLUICE_LISTENING <port>` on stderr (every fixture
 * preloading `loopback_listen.ts`) and waits (at most 30 s) for that port.
 *
 * @param fixture the script's file name in `fixtures/`
 * @param args its arguments
 * @param env extra environment
 */
export async function startLoopbackServer(
  fixture: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<LoopbackServer> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", `${FIXTURES}${fixture}`, ...args],
    cwd: REPO_ROOT,
    env,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const lines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  let port: number | undefined;
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  try {
    while (port === undefined) {
      const { value, done } = await lines.read();
      if (done) throw new Error(`${fixture} exited before listening: ${buffered}`);
      buffered += value;
      const match = /SLUICE_LISTENING (\d+)/.exec(buffered);
      if (match) port = Number(match[1]);
    }
  } finally {
    clearTimeout(timer);
  }
  // Keep draining stderr so the child never blocks on a full pipe.
  const drained = (async () => {
    try {
      while (!(await lines.read()).done) { /* discard */ }
    } catch {
      // The stream errors when the child is killed.
    }
  })();
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    pid: child.pid,
    children: () => childrenOf(child.pid),
    async close() {
      try {
        child.kill("SIGTERM");
      } catch {
        // Already gone.
      }
      await child.status;
      await drained;
    },
  };
}

/**
 * Starts `@modelcontextprotocol/server-everything streamableHttp` under Deno, forced onto
 * 127.0.0.1 with an ephemeral port.
 */
export function startEverythingHttp(): Promise<EverythingHttp> {
  return startLoopbackServer("server_everything_http.ts", ["streamableHttp"], { PORT: "0" });
}

/**
 * Starts one of the official v1 SDK's example servers (`ssePollingExample`, ...) under Deno,
 * forced onto 127.0.0.1 with an ephemeral port.
 *
 * @param name the example's file name without `.js`
 */
export function startSdkExample(name: string): Promise<LoopbackServer> {
  return startLoopbackServer("sdk_example_http.ts", [name], {});
}

/**
 * The code `connect()` rejected with (a `ConnectError`'s), or `undefined` when it resolved; a
 * connection it resolved to is closed.
 */
export async function setupCode(connecting: Promise<Connection>): Promise<string | undefined> {
  let connection: Connection;
  try {
    connection = await connecting;
  } catch (error) {
    if (error instanceof ConnectError) return error.code;
    throw error;
  }
  await connection.close();
  return undefined;
}

/** A loopback port nothing listens on now (the system handed it out, then it was closed). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}
