/**
 * A host process for the end-to-end write suites: it opens the approval store (`--db`: a libSQL
 * path, or a `postgres://` URL), connects
 * the official v2 client to the separate write server (spawned over stdio, or an HTTP URL),
 * discovers the write catalog and runs sluice's `Gate`. Every step is printed as one JSON line
 * on stdout, so the test process reads what happened without sharing memory with it.
 *
 * ```
 * deno run -A tests/support/write_host.ts --db <file> (--dir <records> --ledger <file>
 *   --scenario <name> [--reuse-dir] | --url <http url> | --stdio <argv JSON> [--stdio-env <JSON>])
 *   [--timeout-ms N] [--scope-revision R] [--binding-revision R]
 *   once:  --run-id R --call-id C (--key K | --tool <remote name> --arguments <JSON>)
 *          [--inline] [--kill-at <point>] [--recover]
 *   resume: --resume <approvalId>   (one resume, then done)
 *   serve: --serve [--concurrent]   (stdin lines: "run <runId> <callId> <key>" |
 *          "resume <approvalId>"; with --concurrent each line runs beside the others)
 * ```
 *
 * `--stdio` runs any stdio server (a real one from npm: the argv after Deno's `run -A`, started
 * with the SDK's default environment plus `--stdio-env`) and binds its write tool `--tool` under
 * the same local name; the call's arguments are `--arguments`.
 *
 * `once` runs one write call. Deferred (default): on `approval_pending` it polls the store until
 * a person decided (bounded), then resumes. `--inline` approves inline (exactly `true`).
 * `--kill-at` SIGKILLs this process at that persistence point (at `sent`, only once the
 * server's ledger shows the request arrived). `--recover` runs `gate.recover()` first.
 *
 * Lines: `{"event":"server","pid":N}`, `{"event":"recovered","ids":[...]}`,
 * `{"event":"envelope","envelope":{...}}`, `{"event":"decided","state":"..."}`,
 * `{"event":"killing","point":"..."}`, `{"event":"ready"}` (serve), `{"event":"done"}`.
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CatalogMonitor, discoverWriteTools, Gate, type PersistencePoint } from "../../mod.ts";
import type { ApprovalStore } from "../../src/approvals/mod.ts";
import { openStore } from "./open_store.ts";
import { type Scenario, SYNTHETIC_VALUE } from "../../fixtures/write_server.ts";
import { PROJECT_ROOT, writeServerStdioParams } from "../../fixtures/write_server_launch.ts";
import { readLedger, receivedFor } from "../../fixtures/write_ledger.ts";
import { writeBinding } from "../../fixtures/write_bindings.ts";
import { stdinLines } from "./stdin_lines.ts";

const encoder = new TextEncoder();
function say(line: Record<string, unknown>): void {
  const bytes = encoder.encode(JSON.stringify(line) + "\n");
  for (let written = 0; written < bytes.length;) {
    written += Deno.stdout.writeSync(bytes.subarray(written));
  }
}

function parseFlags(args: readonly string[]): Map<string, string> {
  const flags = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const name = args[i].replace(/^--/, "");
    const next = args[i + 1];
    if (next === undefined || next.startsWith("--")) {
      flags.set(name, "true");
    } else {
      flags.set(name, next);
      i++;
    }
  }
  return flags;
}

const flags = parseFlags(Deno.args);
const need = (name: string): string => {
  const value = flags.get(name);
  if (value === undefined) throw new Error(`--${name} is required`);
  return value;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForReceived(ledger: string, key: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (receivedFor(await readLedger(ledger), key).length > 0) return;
    await sleep(25);
  }
}

async function main(): Promise<void> {
  const store = await openStore(need("db"));
  const monitor = new CatalogMonitor();
  const client = new Client({ name: "sluice-write-host", version: "1.0.0" }, {
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    versionNegotiation: { mode: "legacy" },
  });
  const url = flags.get("url");
  const stdio = flags.get("stdio");
  const transport = url !== undefined
    ? new StreamableHTTPClientTransport(new URL(url))
    : stdio !== undefined
    ? new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", "-A", "--quiet", ...JSON.parse(stdio) as string[]],
      cwd: PROJECT_ROOT,
      env: { ...getDefaultEnvironment(), ...JSON.parse(flags.get("stdio-env") ?? "{}") },
      stderr: "ignore",
    })
    : new StdioClientTransport({
      ...writeServerStdioParams(
        { dir: need("dir"), ledger: need("ledger") },
        need("scenario") as Scenario,
        { reuseDir: flags.has("reuse-dir") },
      ),
      env: getDefaultEnvironment(),
      stderr: "ignore",
    });
  transport.onmessage = monitor.onMessage;
  try {
    await client.connect(transport);
    if (transport instanceof StdioClientTransport) say({ event: "server", pid: transport.pid });
    monitor.acceptProtocolVersion(client.getNegotiatedProtocolVersion());
    const tool = flags.get("tool");
    const writes = await discoverWriteTools(client, tool === undefined ? "records" : "real", {
      [tool ?? "write_record"]: writeBinding({
        scopeRevision: flags.get("scope-revision") ?? "scope-1",
        bindingRevision: flags.get("binding-revision") ?? "rev-1",
        ...(tool === undefined ? {} : { localName: tool, bindingId: `real.${tool}` }),
      }),
    }, { monitor, limits: { timeoutMs: Number(flags.get("timeout-ms") ?? 10_000) } });
    const killAt = flags.get("kill-at") as PersistencePoint | undefined;
    const key = flags.get("key") ?? "";
    const gate = new Gate({
      catalogs: [writes],
      store,
      ...(flags.has("inline") ? { approve: () => true } : {}),
      onPersistencePointForTests: async (point) => {
        if (point !== killAt) return;
        if (point === "sent") await waitForReceived(need("ledger"), key);
        say({ event: "killing", point });
        Deno.kill(Deno.pid, "SIGKILL");
        await sleep(10_000);
      },
    });
    if (flags.has("recover")) say({ event: "recovered", ids: await gate.recover() });
    if (flags.has("serve")) {
      await serve(gate);
    } else if (flags.has("resume")) {
      say({ event: "envelope", envelope: await gate.resume(need("resume")) });
    } else {
      await once(gate, store, key);
    }
    say({ event: "done" });
  } finally {
    monitor.close();
    await client.close();
    await store.close();
  }
}

async function once(gate: Gate, store: ApprovalStore, key: string): Promise<void> {
  const tool = flags.get("tool");
  const call = {
    id: need("call-id"),
    name: tool ?? "save_record",
    arguments: tool !== undefined
      ? JSON.parse(need("arguments"))
      : { key, value: flags.get("value") ?? SYNTHETIC_VALUE },
  };
  const [envelope] = await gate.run([call], { runId: need("run-id") });
  say({ event: "envelope", envelope });
  if (envelope.errorCode !== "approval_pending") return;
  const id = envelope.approvalId!;
  // A person decides in another process; poll the durable record (bounded: 30 s).
  for (let i = 0; i < 600; i++) {
    const record = await store.get(id);
    if (record !== undefined && record.state !== "pending") {
      say({ event: "decided", state: record.state });
      say({ event: "envelope", envelope: await gate.resume(id) });
      return;
    }
    await sleep(50);
  }
  say({ event: "gave-up" });
}

async function serve(gate: Gate): Promise<void> {
  say({ event: "ready" });
  const running: Promise<void>[] = [];
  for await (const line of stdinLines()) {
    const step = command(gate, line);
    // --concurrent: each line runs at once, beside those still running (its envelope names it).
    if (flags.has("concurrent")) running.push(step);
    else await step;
  }
  await Promise.all(running);
}

async function command(gate: Gate, line: string): Promise<void> {
  const [command, ...rest] = line.split(" ");
  if (command === "run") {
    const [runId, callId, key] = rest;
    const [envelope] = await gate.run([
      { id: callId, name: "save_record", arguments: { key, value: SYNTHETIC_VALUE } },
    ], { runId });
    say({ event: "envelope", line, envelope });
  } else if (command === "resume") {
    say({ event: "envelope", line, envelope: await gate.resume(rest[0]) });
  }
}

await main();
