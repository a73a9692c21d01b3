/**
 * A 2025 client on an in-memory pipe to the served toolkit (the path `sluice serve --stdio`
 * takes: `connectRelayed`, then `serveOnTransport`), in front of the client-requests upstream
 * (`fixtures/client_requests_server.ts`) with one of its tools allowed and pre-approved.
 */
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import type { ClientCapabilities } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { connectRelayed } from "../../serve.ts";
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
