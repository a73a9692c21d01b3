/**
 * One governed endpoint for the serve tests: the read fixture (HTTP) and the write fixture
 * (a separate process with its ledger) upstream, `serve()` over them with an approval store,
 * mounted in `Deno.serve` on loopback, and official v2 SDK clients downstream.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { type ApprovalStore, MemoryApprovalStore } from "../../mod.ts";
import { LibsqlApprovalStore } from "../../libsql.ts";
import {
  serve,
  type ServeClient,
  type ServeConfig,
  type Served,
  type ServeEvent,
} from "../../serve.ts";
import type { ServeLimits } from "../../serve.ts";
import { startHttpServer } from "../../fixtures/read_server_http.ts";
import {
  createWriteWorkspace,
  startWriteServerHttp,
  type WriteWorkspace,
} from "../../fixtures/write_server_launch.ts";
import type { Scenario } from "../../fixtures/write_server.ts";

/** The token of the client that sees every tool. */
export const IDE_TOKEN = "ide-token-0123456789abcdef0123456789abcdef";
/** The token of the client whose allowlist holds only `docs__echo`. */
export const READER_TOKEN = "reader-token-0123456789abcdef0123456789abcd";

/** The endpoint's read tools (pre-approved); `records.write_record` needs approval. */
const READS = [
  "docs.echo",
  "docs.add",
  "docs.slow",
  "docs.is_error",
  "docs.throws",
  "records.read_record",
];

/** What the client that sees everything is listed, by local name, sorted. */
export const SERVED_NAMES: readonly string[] = [
  "docs__add",
  "docs__echo",
  "docs__is_error",
  "docs__slow",
  "docs__throws",
  "records__read_record",
  "records__write_record",
];

/** The clients of the endpoint. */
export const CLIENTS: readonly ServeClient[] = [
  { name: "ide", token: IDE_TOKEN },
  { name: "reader", token: READER_TOKEN, allow: ["docs__echo"] },
];

/** A running endpoint with its upstreams. */
export interface Endpoint {
  readonly url: URL;
  readonly served: Served;
  readonly store: ApprovalStore;
  readonly ws: WriteWorkspace;
  readonly events: ServeEvent[];
  close(): Promise<void>;
}

/** Options of {@link startEndpoint}. */
export interface EndpointOptions {
  readonly scenario?: Scenario;
  readonly limits?: Partial<ServeLimits>;
  readonly store?: ApprovalStore;
  /** Origins a browser request may come from. */
  readonly allowedOrigins?: readonly string[];
  /** Served tools the operator runs as tasks. */
  readonly taskTools?: Readonly<Record<string, "optional" | "required">>;
}

/** Both fixtures upstream, a workspace, and an empty libSQL store file in it. */
export interface Upstreams {
  readonly ws: WriteWorkspace;
  /** `docs` (the read fixture) and `records` (the write fixture), as `servers` entries. */
  readonly servers: readonly { readonly id: string; readonly url: string }[];
  /** A libSQL approval store file that exists (the CLI never creates one). */
  readonly db: string;
  /** Writes `config` as `serve.json` in the workspace (servers filled in); returns its path. */
  writeConfig(config: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

/** Starts the read fixture (HTTP) and the write fixture (its own process, its ledger). */
export async function startUpstreams(scenario: Scenario = "success"): Promise<Upstreams> {
  const docs = await startHttpServer();
  const ws = await createWriteWorkspace();
  const records = await startWriteServerHttp(ws, scenario);
  const db = `${ws.root}/approvals.db`;
  await (await LibsqlApprovalStore.open(db)).close();
  const servers = [{ id: "docs", url: docs.url.href }, { id: "records", url: records.url }];
  return {
    ws,
    servers,
    db,
    async writeConfig(config) {
      const path = `${ws.root}/serve.json`;
      await Deno.writeTextFile(path, JSON.stringify({ servers, ...config }));
      return path;
    },
    async close() {
      await records.stop();
      await docs.close();
      await ws.remove();
    },
  };
}

/** A person approves `approvalId` in the store file, as `sluice approvals approve` does. */
export async function approveInFile(db: string, approvalId: string): Promise<void> {
  const person = await LibsqlApprovalStore.open(db);
  try {
    await person.approve(approvalId, { by: "alice" });
  } finally {
    await person.close();
  }
}

/** Starts both fixtures, `serve()` over them, and `Deno.serve` on 127.0.0.1. */
export async function startEndpoint(options: EndpointOptions = {}): Promise<Endpoint> {
  const upstreams = await startUpstreams(options.scenario);
  const store = options.store ?? new MemoryApprovalStore();
  const events: ServeEvent[] = [];
  const served = await serve({
    servers: upstreams.servers,
    allow: [...READS, "records.write_record"],
    preApproved: READS,
    store,
    allowNonDurableStoreForTests: true,
    transport: { dangerouslyAllowLoopback: true, timeoutMs: 10_000 },
    serve: {
      clients: CLIENTS,
      ...(options.limits ? { limits: options.limits } : {}),
      ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
      ...(options.taskTools ? { taskTools: options.taskTools } : {}),
      onEvent: (event) => events.push(event),
    },
  });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    served.fetch,
  );
  const url = new URL(`http://127.0.0.1:${server.addr.port}/mcp`);
  return {
    url,
    served,
    store,
    ws: upstreams.ws,
    events,
    async close() {
      await served.close();
      await server.shutdown();
      await upstreams.close();
    },
  };
}

/** A v2 SDK client connected to the endpoint with `token` (2026-07-28 unless `legacy`). */
export async function connectClient(
  url: URL,
  token: string | undefined,
  legacy = false,
): Promise<Client> {
  const client = new Client({ name: "serve-test", version: "0" }, {
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    versionNegotiation: { mode: legacy ? "legacy" : "auto" },
  });
  const headers: Record<string, string> = token === undefined
    ? {}
    : { authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

/** The text of a result's text blocks. */
export function textOf(result: { content?: unknown }): string[] {
  return ((result.content ?? []) as { type: string; text?: string }[])
    .filter((block) => block.type === "text").map((block) => block.text ?? "");
}

/** The `io.sluice/outcome` of a result. */
export function outcomeOf(result: { _meta?: unknown }): Record<string, unknown> {
  return ((result._meta ?? {}) as Record<string, Record<string, unknown>>)["io.sluice/outcome"] ??
    {};
}

/**
 * A `serve()` configuration over the read fixture alone (server `docs` at `url`): `tools` (remote
 * names) allowed and pre-approved, an in-memory store, loopback allowed; `serveOptions` as given.
 */
export function docsConfig(
  url: URL,
  tools: readonly string[],
  serveOptions: ServeConfig["serve"],
  extra: Partial<ServeConfig> = {},
): ServeConfig {
  const allow = tools.map((tool) => `docs.${tool}`);
  return {
    servers: [{ id: "docs", url: url.href }],
    allow,
    preApproved: allow,
    store: new MemoryApprovalStore(),
    allowNonDurableStoreForTests: true,
    transport: { dangerouslyAllowLoopback: true, timeoutMs: 10_000 },
    ...extra,
    serve: serveOptions,
  };
}
