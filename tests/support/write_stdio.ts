/**
 * The write server as a separate stdio process with the official v2 client and a catalog
 * monitor, for gate tests whose host is the test process itself.
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { CatalogMonitor } from "../../mod.ts";
import type { Scenario } from "../../fixtures/write_server.ts";
import { writeServerStdioParams, type WriteWorkspace } from "../../fixtures/write_server_launch.ts";

/** A connected write server. */
export interface WriteStdio {
  readonly client: Client;
  readonly monitor: CatalogMonitor;
  /** The server process's PID. */
  readonly pid: number;
  /** Closes the client (the server exits) and the monitor. */
  close(): Promise<void>;
}

/** Starts the write server of `ws` in `scenario` and connects to it. */
export async function connectWriteStdio(
  ws: WriteWorkspace,
  scenario: Scenario,
  name: string,
): Promise<WriteStdio> {
  const monitor = new CatalogMonitor();
  const client = new Client({ name, version: "1.0.0" }, {
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    versionNegotiation: { mode: "legacy" },
  });
  const transport = new StdioClientTransport({
    ...writeServerStdioParams(ws, scenario),
    env: getDefaultEnvironment(),
    stderr: "ignore",
  });
  transport.onmessage = monitor.onMessage;
  const close = async () => {
    monitor.close();
    await client.close();
  };
  try {
    await client.connect(transport);
  } catch (error) {
    await close();
    throw error;
  }
  monitor.acceptProtocolVersion(client.getNegotiatedProtocolVersion());
  return { client, monitor, pid: transport.pid!, close };
}
