/**
 * Installed-package check: uses sluice only through its public entry point (`../mod.ts`), as a
 * user of the package would, with the official v1 SDK client. Starts the v1 stdio fixture
 * server as a separate process, discovers two tools, calls them, closes, and verifies by PID
 * that the server process has exited. Exits non-zero on any failure.
 *
 * `deno run -A scripts/check_installed.ts [server-script]` (default: the v1 stdio read fixture)
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { CatalogMonitor, discoverTools, Gate, type ToolEnvelope } from "../mod.ts";
import { processGone } from "../fixtures/process.ts";

const root = new URL("../", import.meta.url).pathname;
const serverScript = Deno.args[0] ??
  new URL("../fixtures/read_server_v1_stdio.ts", import.meta.url).pathname;

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`check failed: ${what}`);
  console.log(`ok - ${what}`);
}

function same(envelope: ToolEnvelope<string>, expected: ToolEnvelope): boolean {
  return JSON.stringify(envelope) === JSON.stringify(expected);
}

async function main(): Promise<void> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", serverScript],
    cwd: root,
    stderr: "inherit",
  });
  const monitor = new CatalogMonitor();
  // The v1 client chains a transport's existing onmessage and reports the negotiated version
  // through setProtocolVersion: the host hooks both before connecting.
  transport.onmessage = monitor.onMessage;
  let negotiated: string | undefined;
  const transportWithVersion = transport as unknown as {
    setProtocolVersion?: (version: string) => void;
  };
  transportWithVersion.setProtocolVersion = (version) => {
    negotiated = version;
  };
  const client = new Client({ name: "sluice-check-installed", version: "0.0.0" }, {
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });
  let pid: number | undefined;
  try {
    await client.connect(transport);
    pid = transport.pid ?? undefined;
    check(pid !== undefined, "the stdio server runs as a separate process");
    check(monitor.acceptProtocolVersion(negotiated), `negotiated version ${negotiated} accepted`);
    const reads = await discoverTools(client, "check-installed", {
      echo: {
        localName: "echo_text",
        policy: { mode: "read", title: "Echo" },
        scope: null,
        concurrencySafe: true,
      },
      add: {
        localName: "add_numbers",
        policy: { mode: "read", title: "Add" },
        scope: (_state, args) => (args.a === 666 ? "denied by host" : undefined),
        concurrencySafe: false,
      },
    }, { monitor });
    check(
      reads.snapshot.entries.map((entry) => entry.localName).join(",") === "add_numbers,echo_text",
      "discovery selected exactly the bound tools",
    );
    check(Object.isFrozen(reads.snapshot.entries[0].inputSchema), "the snapshot is frozen");
    // A read-only gate runs the reads: a registration has no call path of its own.
    const gate = new Gate({ catalogs: [reads] });
    const callOf = (name: string) => async (args: Record<string, unknown>) => {
      const [{ id: _id, ...envelope }] = await gate.run([{ id: "c", name, arguments: args }], {
        runId: "check-installed",
      });
      return envelope;
    };
    const [add, echo] = [{ call: callOf("add_numbers") }, { call: callOf("echo_text") }];
    check(
      same(await echo.call({ message: "installed" }), { text: ["installed"], structured: null }),
      "echo returns its text",
    );
    check(
      same(await add.call({ a: 2, b: 40 }), { text: ['{"sum":42}'], structured: { sum: 42 } }),
      "add returns validated structured content",
    );
    check((await add.call({ a: 666, b: 1 })).errorCode === "mcp_scope_denied", "scope denies");
    monitor.close();
    check(
      (await echo.call({ message: "after close" })).errorCode === "mcp_connection_closed",
      "a closed monitor fails calls",
    );
  } finally {
    monitor.close();
    await client.close();
  }
  if (pid !== undefined) {
    check(await processGone(pid), `server process ${pid} has exited`);
  }
}

try {
  await main();
  console.log("check_installed: all checks passed");
} catch (error) {
  console.error(`check_installed: ${error instanceof Error ? error.message : String(error)}`);
  Deno.exit(1);
}
