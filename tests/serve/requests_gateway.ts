/**
 * `sluice serve` in front of the client-requests upstream (`fixtures/client_requests_server.ts`),
 * its tools pre-approved: over HTTP for one bearer-token client (`startRequestsGateway`), or to a
 * 2025 client on an in-memory pipe, the path `sluice serve --stdio` takes (`withLinkedRelay`).
 */
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import type { ClientCapabilities } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { MemoryApprovalStore } from "../../mod.ts";
import { connectRelayed, serve, type Served } from "../../serve.ts";
import { serveOnTransport } from "../../src/serve/stdio.ts";
import {
  type ClientRequestsServer,
  startClientRequestsServer,
} from "../../fixtures/client_requests_server.ts";

/**
 * Runs `run` with the connected client (served as `desktop`, its tool `up__<tool>`) and the
 * upstream; then the client, the served pipe, the connection and the upstream are closed.
 *
 * @param tool the upstream tool allowed
 * @param capabilities what the client declares at `initialize`
 * @param prepare sets the client's request handlers before it connects
 * @param run the test
 */
export async function withLinkedRelay(
  tool: string,
  capabilities: ClientCapabilities,
  prepare: (client: Client) => void,
  run: (client: Client, upstream: ClientRequestsServer) => Promise<void>,
): Promise<void> {
  const upstream = await startClientRequestsServer();
  const { connection, relay } = await connectRelayed({
    servers: [{ id: "up", url: upstream.url.href }],
    allow: [`up.${tool}`],
    preApproved: [`up.${tool}`],
    transport: { dangerouslyAllowLoopback: true, timeoutMs: 10_000 },
  });
  try {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const served = await serveOnTransport(connection.toolkit, {
      client: { name: "desktop" },
      inputRelay: relay,
    }, serverSide);
    const client = new Client({ name: "desktop", version: "0" }, {
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
      versionNegotiation: { mode: "legacy" },
      capabilities,
    });
    prepare(client);
    await client.connect(clientSide);
    await run(client, upstream);
    await client.close();
    await served.closed;
  } finally {
    await connection.close();
    await upstream.close();
  }
}

/** A gateway over HTTP in front of the client-requests upstream. */
export interface RequestsGateway {
  readonly url: URL;
  readonly upstream: ClientRequestsServer;
  readonly served: Served;
  close(): Promise<void>;
}

/**
 * `serve()` in `Deno.serve` on loopback, one client `ide` with `token`, the upstream's `tools`
 * allowed and pre-approved as `up.<tool>`.
 *
 * @param token the client's bearer token
 * @param tools the upstream tools served
 * @param options the upstream tools' deadline, a 2025-only upstream, task tools
 */
export async function startRequestsGateway(
  token: string,
  tools: readonly string[],
  options: {
    readonly timeoutMs?: number;
    readonly legacyUpstream?: boolean;
    readonly taskTools?: Record<string, "optional">;
  } = {},
): Promise<RequestsGateway> {
  const upstream = await startClientRequestsServer({ legacyOnly: options.legacyUpstream });
  const allowed = tools.map((tool) => `up.${tool}`);
  let served: Served;
  try {
    served = await serve({
      servers: [{ id: "up", url: upstream.url.href }],
      allow: allowed,
      preApproved: allowed,
      store: new MemoryApprovalStore(),
      allowNonDurableStoreForTests: true,
      transport: { dangerouslyAllowLoopback: true, timeoutMs: options.timeoutMs ?? 10_000 },
      serve: {
        clients: [{ name: "ide", token }],
        ...(options.taskTools ? { taskTools: options.taskTools } : {}),
      },
    });
  } catch (error) {
    await upstream.close();
    throw error;
  }
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, served.fetch);
  return {
    url: new URL(`http://127.0.0.1:${http.addr.port}/mcp`),
    upstream,
    served,
    async close() {
      await served.close();
      await http.shutdown();
      await upstream.close();
    },
  };
}
