/**
 * The session test harness: `openSession(kind, options)` connects an OFFICIAL SDK client to a
 * read fixture server over one of five real paths and returns the host-side handles a test
 * needs (client, negotiated protocol version, the server's own request log, a list-change
 * trigger, close).
 *
 * ## Client construction (verified by running against these fixtures)
 *
 * v2 (`@modelcontextprotocol/client` 2.4.0), kinds `memory-v2`, `http-2026`, `http-2025`:
 * ```ts
 * new Client({ name, version }, {
 *   jsonSchemaValidator: new CfWorkerJsonSchemaValidator(), // "@modelcontextprotocol/client/validators/cf-worker"
 *   versionNegotiation: { mode: "auto" },   // http-2026: server/discover probe → 2026-07-28
 *   // or { mode: "legacy" } (also the default) // http-2025 and memory-v2: initialize → 2025-11-25
 * });
 * await client.connect(new StreamableHTTPClientTransport(url)); // or an InMemoryTransport
 * client.getNegotiatedProtocolVersion(); // "2026-07-28" | "2025-11-25"
 * ```
 * v1 (`@modelcontextprotocol/sdk` 1.32.2), kinds `memory-v1`, `stdio-v1`:
 * ```ts
 * new Client({ name, version }, {
 *   jsonSchemaValidator: new CfWorkerJsonSchemaValidator(), // "@modelcontextprotocol/sdk/validation/cfworker"
 * });
 * ```
 * The v1 `Client` does NOT expose the negotiated version. It does call the optional transport
 * hook `transport.setProtocolVersion(version)` with the server's `initialize` answer right
 * after the handshake, so the harness installs that hook on the transport before `connect()`
 * (chaining any existing one) and reads the real negotiated version from it (`2025-11-25`).
 *
 * ## How a host receives `notifications/tools/list_changed`
 *
 * - v1 `Client`: `client.setNotificationHandler(ToolListChangedNotificationSchema, fn)`. ONE
 *   handler per method: a second call REPLACES the first. The `listChanged: { tools: {
 *   onChanged } }` client option installs its own handler for the same method (and by default
 *   `autoRefresh` re-lists tools, i.e. sends `tools/list` on its own).
 * - v2 `Client` on a 2025 era: `client.setNotificationHandler("notifications/tools/list_changed",
 *   fn)`; same replace-not-add rule. The server sends the notification unsolicited (in memory,
 *   stdio, or a stateful HTTP session's GET stream). The STATELESS 2025 HTTP fallback of
 *   `createMcpHandler` has no standalone stream (GET → 405), so a change reaches the client
 *   only as a notification related to an in-flight request (the fixture's control tool).
 * - v2 `Client` on 2026-07-28: nothing is sent unsolicited. The client must open a
 *   `subscriptions/listen` stream: `const sub = await client.listen({ toolsListChanged: true })`
 *   (resolves after the server's acknowledgement; `sub.honoredFilter` says what the server
 *   agreed to; `sub.closed` resolves `'local' | 'graceful' | 'remote'`; `sub.close()` ends it).
 *   Notifications on that stream are dispatched to the SAME `setNotificationHandler`
 *   registration as on a 2025 connection. Alternatively the `listChanged` client option
 *   auto-opens such a subscription at connect (`client.autoOpenedSubscription`). On a 2025 era
 *   `client.listen()` throws (`MethodNotSupportedByProtocolVersion`).
 *
 * Because the SDKs replace rather than add handlers, the harness installs exactly one handler
 * per client and fans out to listeners registered with `onToolsListChanged()`; a host hook
 * (for example a catalog monitor) composes by registering there instead of replacing.
 *
 * @module
 */
import { Client as ClientV2, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator as CfWorkerV2 } from "@modelcontextprotocol/client/validators/cf-worker";
import { StdioClientTransport as StdioClientTransportV2 } from "@modelcontextprotocol/client/stdio";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CfWorkerJsonSchemaValidator as CfWorkerV1 } from "@modelcontextprotocol/sdk/validation/cfworker";
import {
  CallToolResultSchema,
  ListToolsResultSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { type MemoryServerV2, startMemoryServerV2 } from "../../fixtures/read_server_v2.ts";
import { type MemoryServerV1, startMemoryServerV1 } from "../../fixtures/read_server_v1.ts";
import { startHttpServer } from "../../fixtures/read_server_http.ts";
import {
  CHANGE_TOOL_NAME,
  type LogEntry,
  type ReadToolsOptions,
} from "../../fixtures/read_tools.ts";

export type { LogEntry };
export { processAlive } from "../../fixtures/process.ts";

/** The five real paths the read suite runs over. */
export type SessionKind = "memory-v1" | "memory-v2" | "stdio-v1" | "http-2026" | "http-2025";

/** Every session kind, for suites that loop over all of them. */
export const SESSION_KINDS: readonly SessionKind[] = [
  "memory-v1",
  "memory-v2",
  "stdio-v1",
  "http-2026",
  "http-2025",
];

/** Options for {@link openSession}. */
export interface SessionOptions extends ReadToolsOptions {
  /**
   * `http-2026` only: open `subscriptions/listen { toolsListChanged: true }` at connect so
   * `changeTools()` reaches the client. Default false: a host (or the code under test) is
   * expected to open its own subscription; the harness does not do it behind its back.
   */
  listen?: boolean;
}

/** The v2 client this harness builds (`@modelcontextprotocol/client`). */
export type ClientV2Type = ClientV2;
/** The v1 client this harness builds (`@modelcontextprotocol/sdk`). */
export type ClientV1Type = ClientV1;

interface SessionBase {
  /** Which path this is. */
  kind: SessionKind;
  /** The version the real handshake negotiated (`2025-11-25` or `2026-07-28`). */
  protocolVersion: string;
  /** The server's own request log (every inbound request and notification, in order). */
  log(): Promise<LogEntry[]>;
  /**
   * Mutates echo's description on the server and makes the server announce it. Resolves once
   * the server has changed; delivery to the client is asynchronous (use `onToolsListChanged`).
   * stdio-v1 and http-2025 do this through a `tools/call` of the control tool
   * `fixture_change_tools` (visible in the log); the other kinds call into the server directly.
   */
  changeTools(): Promise<void>;
  /**
   * Adds a listener for `notifications/tools/list_changed` received by the client (composes:
   * any number of listeners). Returns its removal function.
   */
  onToolsListChanged(listener: () => void): () => void;
  /** Number of list_changed notifications the client received so far. */
  listChangedCount(): number;
  /** Closes client and server (idempotent); stdio: the server process has exited after this. */
  close(): Promise<void>;
  /** stdio-v1: the server process id. */
  pid?: number;
  /** HTTP kinds: the MCP endpoint. */
  url?: URL;
  /** HTTP kinds: how many HTTP requests the server has served. */
  httpRequests?: () => number;
}

/** A v2-client session. */
export interface SessionV2 extends SessionBase {
  /** Discriminator. */
  sdk: "v2";
  /** The connected official v2 client. */
  client: ClientV2;
}

/** A v1-client session. */
export interface SessionV1 extends SessionBase {
  /** Discriminator. */
  sdk: "v1";
  /** The connected official v1 client. */
  client: ClientV1;
}

/** An open fixture session. */
export type FixtureSession = SessionV1 | SessionV2;

const CLIENT_INFO = { name: "sluice-tests", version: "0.0.0" };

/** Absolute path of the v1 stdio fixture script. */
export const STDIO_FIXTURE = new URL("../../fixtures/read_server_v1_stdio.ts", import.meta.url)
  .pathname;
/** The repository root (cwd for subprocesses, so `deno.json` import mapping applies). */
export const REPO_ROOT = new URL("../../", import.meta.url).pathname;

/** Fan-out of one SDK notification handler to many listeners. */
class ListenerSet {
  readonly #listeners = new Set<() => void>();
  count = 0;
  add(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
  fire(): void {
    this.count += 1;
    for (const listener of [...this.#listeners]) listener();
  }
}

function newClientV2(mode: "auto" | "legacy"): ClientV2 {
  return new ClientV2(CLIENT_INFO, {
    jsonSchemaValidator: new CfWorkerV2(),
    versionNegotiation: { mode },
  });
}

function newClientV1(): ClientV1 {
  return new ClientV1(CLIENT_INFO, { jsonSchemaValidator: new CfWorkerV1() });
}

/** A transport the v1 client reports the negotiated version to (see module doc). */
interface VersionReporting {
  setProtocolVersion?: (version: string) => void;
}

/**
 * Installs the v1 `setProtocolVersion` hook on a transport; the returned getter yields what the
 * client reported after `connect()`.
 */
function captureVersion(transport: VersionReporting): () => string | undefined {
  let negotiated: string | undefined;
  const previous = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (version: string) => {
    negotiated = version;
    previous?.(version);
  };
  return () => negotiated;
}

function mustVersion(version: string | undefined, kind: SessionKind): string {
  if (version === undefined) throw new Error(`${kind}: no negotiated protocol version`);
  return version;
}

function readToolsOptions(options: SessionOptions): ReadToolsOptions {
  const { extraTools, pageSize, emptyCursor, reverse, onlyExtraTools } = options;
  return { extraTools, pageSize, emptyCursor, reverse, onlyExtraTools };
}

/** Calls the control tool through a v1 client. */
async function callControlV1(client: ClientV1): Promise<void> {
  await client.request(
    { method: "tools/call", params: { name: CHANGE_TOOL_NAME, arguments: {} } },
    CallToolResultSchema,
  );
}

/** Calls the control tool through a v2 client. */
async function callControlV2(client: ClientV2): Promise<void> {
  await client.request({
    method: "tools/call",
    params: { name: CHANGE_TOOL_NAME, arguments: {} },
  });
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= fn());
}

/**
 * Opens a session of `kind` against a fresh fixture server.
 *
 * @param kind which real path to use
 * @param options table options (extras, page size, empty cursor, order) and `listen`
 */
export async function openSession(
  kind: SessionKind,
  options: SessionOptions = {},
): Promise<FixtureSession> {
  switch (kind) {
    case "memory-v1":
      return await openMemoryV1(options);
    case "memory-v2":
      return await openMemoryV2(options);
    case "stdio-v1":
      return await openStdioV1(options);
    case "http-2026":
    case "http-2025":
      return await openHttp(kind, options);
  }
}

/** Runs the client's handshake; closes the in-memory server (or the client) when it fails. */
async function connectOrClose(
  connect: () => Promise<void>,
  server: { close(): Promise<void> },
): Promise<void> {
  try {
    await connect();
  } catch (error) {
    await server.close();
    throw error;
  }
}

/** The handles both in-memory kinds share: the server's log and catalog, close both ends. */
function memoryHandles(
  server: MemoryServerV1 | MemoryServerV2,
  client: { close(): Promise<void> },
  listeners: ListenerSet,
): Pick<SessionBase, "log" | "changeTools" | "onToolsListChanged" | "listChangedCount" | "close"> {
  return {
    log: () => Promise.resolve([...server.log]),
    changeTools: () => Promise.resolve(server.catalog.changeTools()),
    onToolsListChanged: (listener) => listeners.add(listener),
    listChangedCount: () => listeners.count,
    close: once(async () => {
      await client.close();
      await server.close();
    }),
  };
}

async function openMemoryV1(options: SessionOptions): Promise<SessionV1> {
  const server = await startMemoryServerV1(readToolsOptions(options));
  const client = newClientV1();
  const listeners = new ListenerSet();
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => listeners.fire());
  const version = captureVersion(server.clientTransport);
  await connectOrClose(() => client.connect(server.clientTransport), server);
  return {
    sdk: "v1",
    kind: "memory-v1",
    client,
    protocolVersion: mustVersion(version(), "memory-v1"),
    ...memoryHandles(server, client, listeners),
  };
}

async function openMemoryV2(options: SessionOptions): Promise<SessionV2> {
  const server = await startMemoryServerV2(readToolsOptions(options));
  const client = newClientV2("legacy");
  const listeners = new ListenerSet();
  client.setNotificationHandler("notifications/tools/list_changed", () => listeners.fire());
  await connectOrClose(() => client.connect(server.clientTransport), server);
  return {
    sdk: "v2",
    kind: "memory-v2",
    client,
    protocolVersion: mustVersion(client.getNegotiatedProtocolVersion(), "memory-v2"),
    ...memoryHandles(server, client, listeners),
  };
}

async function openHttp(
  kind: "http-2026" | "http-2025",
  options: SessionOptions,
): Promise<SessionV2> {
  const server = await startHttpServer(readToolsOptions(options));
  const client = newClientV2(kind === "http-2026" ? "auto" : "legacy");
  const listeners = new ListenerSet();
  client.setNotificationHandler("notifications/tools/list_changed", () => listeners.fire());
  let subscription: { close(): Promise<void> } | undefined;
  try {
    await client.connect(new StreamableHTTPClientTransport(server.url));
    if (kind === "http-2026" && options.listen) {
      subscription = await client.listen({ toolsListChanged: true });
    }
  } catch (error) {
    await client.close().catch(() => {});
    await server.close();
    throw error;
  }
  return {
    sdk: "v2",
    kind,
    client,
    protocolVersion: mustVersion(client.getNegotiatedProtocolVersion(), kind),
    log: () => Promise.resolve([...server.log]),
    changeTools: kind === "http-2026"
      ? () => Promise.resolve(server.changeTools())
      : () => callControlV2(client),
    onToolsListChanged: (listener) => listeners.add(listener),
    listChangedCount: () => listeners.count,
    url: server.url,
    httpRequests: server.httpRequests,
    close: once(async () => {
      await subscription?.close();
      await client.close();
      await server.close();
    }),
  };
}

async function openStdioV1(options: SessionOptions): Promise<SessionV1> {
  const logFile = await Deno.makeTempFile({ prefix: "sluice-stdio-log-", suffix: ".jsonl" });
  const args = ["run", "-A", "--quiet", STDIO_FIXTURE, "--log", logFile];
  if (options.extraTools !== undefined) args.push("--extra-tools", String(options.extraTools));
  if (options.pageSize !== undefined) args.push("--page-size", String(options.pageSize));
  if (options.emptyCursor) args.push("--empty-cursor");
  if (options.reverse) args.push("--reverse");
  if (options.onlyExtraTools) args.push("--only-extra-tools");
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args,
    cwd: REPO_ROOT,
    stderr: "inherit",
  });
  const client = newClientV1();
  const listeners = new ListenerSet();
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => listeners.fire());
  const version = captureVersion(transport);
  try {
    await client.connect(transport);
  } catch (error) {
    await client.close().catch(() => {});
    await Deno.remove(logFile).catch(() => {});
    throw error;
  }
  const pid = transport.pid ?? undefined;
  return {
    sdk: "v1",
    kind: "stdio-v1",
    client,
    protocolVersion: mustVersion(version(), "stdio-v1"),
    log: async () => parseLog(await Deno.readTextFile(logFile)),
    changeTools: () => callControlV1(client),
    onToolsListChanged: (listener) => listeners.add(listener),
    listChangedCount: () => listeners.count,
    pid,
    close: once(async () => {
      await client.close();
      await Deno.remove(logFile).catch(() => {});
    }),
  };
}

function parseLog(text: string): LogEntry[] {
  return text.split("\n").filter((line) => line.length > 0).map((line) =>
    JSON.parse(line) as LogEntry
  );
}

/** Opens a session of `kind`, runs `body` with it, and closes it even when `body` throws. */
export async function withSession(
  kind: SessionKind,
  options: SessionOptions,
  body: (session: FixtureSession) => Promise<void>,
): Promise<void> {
  const session = await openSession(kind, options);
  try {
    await body(session);
  } finally {
    await session.close();
  }
}

/** Polls until `predicate` holds, at most `timeoutMs` (bounded loop); returns the last value. */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
  stepMs = 10,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < Math.ceil(timeoutMs / stepMs) + 1; i++) {
    if (await predicate()) return true;
    if (Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
  return await predicate();
}

/** A raw `tools/list` page as the client received it (no SDK-side tool validation). */
export interface RawListPage {
  /** The tools of this page. */
  tools: { name: string; description?: string; [key: string]: unknown }[];
  /** The next cursor, if any (may be `""`). */
  nextCursor?: string;
}

/** Sends one raw `tools/list` through the session's client. */
export async function rawListTools(
  session: FixtureSession,
  cursor?: string,
): Promise<RawListPage> {
  const params = cursor === undefined ? {} : { cursor };
  if (session.sdk === "v1") {
    return await session.client.request(
      { method: "tools/list", params },
      ListToolsResultSchema,
    ) as RawListPage;
  }
  return await session.client.request({ method: "tools/list", params }) as RawListPage;
}

/** A raw `tools/call` result as the client received it. */
export interface RawCallOutcome {
  /** Content blocks. */
  content: { type: string; [key: string]: unknown }[];
  /** Structured content, if sent. */
  structuredContent?: unknown;
  /** Remote error flag, if sent. */
  isError?: boolean;
}

/** Sends one raw `tools/call` through the session's client (no SDK output validation). */
export async function rawCallTool(
  session: FixtureSession,
  name: string,
  args: Record<string, unknown> = {},
  options: { signal?: AbortSignal; timeout?: number } = {},
): Promise<RawCallOutcome> {
  const request = { method: "tools/call" as const, params: { name, arguments: args } };
  if (session.sdk === "v1") {
    return await session.client.request(request, CallToolResultSchema, options) as RawCallOutcome;
  }
  return await session.client.request(request, options) as RawCallOutcome;
}

/** Absolute path of the wrapper that runs the pinned `@modelcontextprotocol/server-everything`. */
export const EVERYTHING_SCRIPT = new URL("../../fixtures/server_everything.ts", import.meta.url)
  .pathname;

/**
 * A `data:` URI for `gzip-file-as-resource`'s `data` argument: its default is an internet URL,
 * which tests must never fetch.
 */
export const EVERYTHING_DATA_URI = "data:text/plain;base64,aGVsbG8=";

/** An official SDK client (v1 or v2) connected to the real server-everything over stdio. */
export type EverythingSession =
  & ({
    /** The official v1 client. */
    sdk: "v1";
    client: ClientV1;
  } | {
    /** The official v2 client (legacy negotiation, as over stdio it must). */
    sdk: "v2";
    client: ClientV2;
  })
  & {
    /** The version the handshake negotiated. */
    protocolVersion: string;
    /** The server process id. */
    pid?: number;
    /** Closes the client (ends the server's stdin; the process exits). Idempotent. */
    close(): Promise<void>;
  };

/**
 * Starts `@modelcontextprotocol/server-everything` (pinned in `deno.json`, run by Deno through
 * `fixtures/server_everything.ts stdio`) and connects an official client with the cfworker
 * validator, declaring no client capabilities (13 tools listed). Its stderr is discarded (it
 * logs a banner there).
 *
 * @param sdk which official client: v1 (`@modelcontextprotocol/sdk`) or v2
 */
export async function openServerEverything(sdk: "v1" | "v2" = "v1"): Promise<EverythingSession> {
  const params = {
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", EVERYTHING_SCRIPT, "stdio"],
    cwd: REPO_ROOT,
    stderr: "ignore" as const,
  };
  if (sdk === "v2") {
    const transport = new StdioClientTransportV2(params);
    const client = newClientV2("legacy");
    await connectOrClose(() => client.connect(transport), client);
    return {
      sdk,
      client,
      protocolVersion: client.getNegotiatedProtocolVersion() ??
        (() => {
          throw new Error("server-everything (v2): no negotiated protocol version");
        })(),
      pid: transport.pid ?? undefined,
      close: once(() => client.close()),
    };
  }
  const transport = new StdioClientTransport(params);
  const client = newClientV1();
  const version = captureVersion(transport);
  await connectOrClose(() => client.connect(transport), client);
  return {
    sdk,
    client,
    protocolVersion: mustVersion(version(), "stdio-v1"),
    pid: transport.pid ?? undefined,
    close: once(() => client.close()),
  };
}
