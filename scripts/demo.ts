/**
 * `deno task demo`: sluice in three short stories, told on this machine only (127.0.0.1 and a
 * temporary directory), in well under 20 seconds.
 *
 * 1. An agent developer `connect()`s to an HTTP MCP server with an exact allowlist.
 * 2. A platform team runs a write through the `Gate` with a durable libSQL approval store; a
 *    person approves it with the `sluice approvals` CLI in another process.
 * 3. The schema profile refuses a schema it cannot check, naming the keyword and where it is.
 *
 * sluice is used only through its public entry points (`mod.ts`, `libsql.ts`), as a user would.
 * The servers are the project's test fixtures, started as separate processes. Every claim the
 * demo prints is checked against what really happened (the servers' own logs and ledgers); a
 * claim that does not hold ends the demo with exit code 1. Every process it starts is stopped by
 * PID, and the temporary directory is removed, before it exits.
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import {
  CatalogMonitor,
  checkSchema,
  connect,
  ConnectError,
  discoverWriteTools,
  Gate,
  type GateEnvelope,
  type ToolkitEnvelope,
} from "../mod.ts";
import { LibsqlApprovalStore } from "../libsql.ts";
import { SYNTHETIC_VALUE } from "../fixtures/write_server.ts";
import {
  processGone,
  PROJECT_ROOT,
  writeServerStdioParams,
} from "../fixtures/write_server_launch.ts";
import { callTrail, readLedger, receivedCounts } from "../fixtures/write_ledger.ts";

const READ_SERVER = new URL("../fixtures/read_server_http.ts", import.meta.url).pathname;
const CLI = new URL("../cli.ts", import.meta.url).pathname;
/** Bound on every wait for a child process (start-up line, exit). */
const CHILD_TIMEOUT_MS = 15_000;

/** Text width after the indent. */
const WIDTH = 100;

/** A demo claim that did not hold: the demo stops with exit code 1. */
class DemoCheckFailed extends Error {}

function check(condition: boolean, claim: string): asserts condition {
  if (!condition) throw new DemoCheckFailed(claim);
}

const say = (text = "") => console.log(text);

/** Prints `text` after `first`, wrapped at spaces; wrapped lines start with `rest`. */
function wrapped(first: string, rest: string, text: string): void {
  // Leading spaces belong to the first line (aligned columns), not to the words.
  const lead = /^ */.exec(text)![0];
  let prefix = first + lead;
  let line = "";
  for (const word of text.slice(lead.length).split(" ")) {
    if (line !== "" && prefix.length + line.length + 1 + word.length > WIDTH) {
      say(prefix + line);
      prefix = rest;
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  say(prefix + line);
}

const INDENT = " ".repeat(8);
/** A numbered step of a story. */
const step = (label: string, text: string) => wrapped(`  ${label}  `, INDENT, text);
/** Indented text under a step; `hang` indents its wrapped lines further. */
const detail = (text: string, hang = 0) => wrapped(INDENT, INDENT + " ".repeat(hang), text);
/** A command line as a person types it (never wrapped). */
const command = (text: string) => say(`${INDENT}$ ${text}`);
const quote = (block: string) => {
  for (const line of block.trimEnd().split("\n")) say(`${INDENT}│ ${line}`);
};

function envelopeLine(envelope: ToolkitEnvelope | GateEnvelope): string {
  // With structured content the text blocks repeat it as JSON; count them instead.
  const parts = envelope.structured === null ? [`text ${JSON.stringify(envelope.text)}`] : [
    `text [${envelope.text.length} block${envelope.text.length === 1 ? "" : "s"}]`,
    `structured ${JSON.stringify(envelope.structured)}`,
  ];
  if (envelope.errorCode !== undefined) parts.push(`errorCode "${envelope.errorCode}"`);
  if ("effect" in envelope && envelope.effect !== undefined) {
    parts.push(`effect "${envelope.effect}"`);
  }
  return `{ ${parts.join(", ")} }`;
}

/** Everything the demo started, stopped in reverse order at the end, whatever happened. */
const cleanups: (() => Promise<void>)[] = [];
/** PIDs of the server processes, printed at the end so the test can prove they are gone. */
const serverPids: number[] = [];

async function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DemoCheckFailed(`${what} within 15 s`)), CHILD_TIMEOUT_MS);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Starts the HTTP read fixture as its own process; resolves with its URL. */
async function startReadServer(logFile: string): Promise<URL> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--allow-net=127.0.0.1",
      `--allow-write=${logFile}`,
      READ_SERVER,
      "--log",
      logFile,
    ],
    cwd: PROJECT_ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  serverPids.push(child.pid);
  cleanups.push(async () => {
    try {
      child.kill("SIGTERM");
    } catch {
      // Already gone.
    }
    await withTimeout(child.status, "the read server exits");
  });
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  try {
    await withTimeout(
      (async () => {
        while (!buffered.includes("\n")) {
          const { value, done } = await reader.read();
          if (done) break;
          buffered += value;
        }
      })(),
      "the read server prints its URL",
    );
  } finally {
    await reader.cancel();
  }
  const match = /^LISTENING (http:\/\/127\.0\.0\.1:\d+\/mcp)$/.exec(buffered.split("\n")[0]);
  check(match !== null, "the read server listens on 127.0.0.1");
  return new URL(match[1]);
}

/** `tools/call` requests the read server logged, per tool name. */
async function readServerCalls(logFile: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const text = await Deno.readTextFile(logFile).catch(() => "");
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const entry = JSON.parse(line) as { method?: string; toolName?: string };
    if (entry.method === "tools/call" && entry.toolName !== undefined) {
      counts.set(entry.toolName, (counts.get(entry.toolName) ?? 0) + 1);
    }
  }
  return counts;
}

/** Runs `sluice approvals <args>` in its own process, as the person at a terminal would. */
async function approvalsCli(args: string[]): Promise<{ code: number; stdout: string }> {
  const output = await withTimeout(
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", CLI, "approvals", ...args],
      cwd: PROJECT_ROOT,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output(),
    "the approvals CLI finishes",
  );
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout) + decoder.decode(output.stderr),
  };
}

async function agentDeveloper(root: string): Promise<void> {
  say("1. Agent developer: connect() to one server with an exact allowlist");
  const logFile = `${root}/read-server.log`;
  const url = await startReadServer(logFile);
  step("1.1", `A fixture MCP server (official SDK, Streamable HTTP) listens at ${url}`);
  detail("It offers many tools (echo, add, image, audio, ...); the model sees only allowed ones.");

  const asked: string[] = [];
  const connection = await connect(url, {
    id: "demo",
    allow: ["echo", "add", "image", "write_like", "unsupported_schema"],
    preApproved: ["echo", "image", "write_like"],
    // Demo only: sluice refuses plain http and loopback addresses unless told otherwise, so an
    // agent cannot be pointed at services on its own machine. A real server uses https.
    transport: { dangerouslyAllowLoopback: true, timeoutMs: 10_000 },
    approve: (server, tool) => {
      asked.push(`${server}.${tool}`);
      return false; // the person says no
    },
  });
  cleanups.push(() => connection.close());
  step("1.2", "connect() with allow [echo, add, image, write_like, unsupported_schema],");
  detail("preApproved [echo, image, write_like], an approve() callback that says no, and");
  detail("transport.dangerouslyAllowLoopback: true (demo only: real servers need https).");

  const report = connection.report();
  step("1.3", "connection.report():");
  for (const tool of report.ready) {
    const approval = tool.requiresApproval
      ? `needs approval (${tool.approvalReason})`
      : `no approval (${tool.approvalReason})`;
    detail(`ready    ${tool.name.padEnd(18)} ${approval}`);
  }
  for (const tool of report.skipped) {
    detail(`skipped  ${tool.name.padEnd(18)} ${tool.code}:`);
    detail(`${" ".repeat(9)}${tool.reason}`, 9);
  }
  check(report.ready.length === 4, "four allowed tools are ready");
  check(
    report.skipped.length === 1 && report.skipped[0].code === "mcp_schema_unsupported",
    "unsupported_schema is skipped for its schema",
  );
  const writeLike = report.ready.find((tool) => tool.tool === "write_like");
  check(
    writeLike?.requiresApproval === true && writeLike.approvalReason === "destructive_hint",
    "write_like needs approval although pre-approved (destructiveHint)",
  );
  const add = report.ready.find((tool) => tool.tool === "add");
  check(
    add?.requiresApproval === true && add.approvalReason === "default",
    "add needs approval although the server calls it read-only (trustReadOnlyHint is off)",
  );
  detail(
    "Annotations are the server's word, so they can only make the policy stricter: add says " +
      "readOnlyHint but still needs approval (the owner did not set trustReadOnlyHint), and " +
      "write_like was pre-approved, yet the server marks it destructive.",
  );

  const names = connection.toolkit.toAnthropicTools().map((tool) => tool.name);
  step("1.4", "toolkit.toAnthropicTools() is what the model gets; its tool names:");
  detail(names.join(", "));
  detail("(toOpenAITools() and toGeminiTools() give the same tools in their shapes).");
  check(names.length === 4 && !names.includes("demo__unsupported_schema"), "four tools exported");

  const echo = await connection.toolkit.call("demo__echo", { message: "hello from the model" });
  step("1.5", `call demo__echo { message: "hello from the model" } (pre-approved)`);
  detail(`-> ${envelopeLine(echo)}`, 5);
  check(echo.errorCode === undefined && echo.text[0] === "hello from the model", "echo answers");

  const image = await connection.toolkit.call("demo__image", {});
  step("1.6", "call demo__image {}: the server answers with an image block");
  detail(`-> ${envelopeLine(image)}`, 5);
  detail("sluice passes on text and checked structured data only; anything else fails closed.");
  check(image.errorCode === "mcp_result_unsupported", "the image result fails closed");

  const before = (await readServerCalls(logFile)).get("write_like") ?? 0;
  const denied = await connection.toolkit.call("demo__write_like", {});
  const after = (await readServerCalls(logFile)).get("write_like") ?? 0;
  step("1.7", "call demo__write_like {}: it needs approval, and approve() returns false");
  detail(`-> ${envelopeLine(denied)}`, 5);
  detail(`approve() was asked about ${asked.join(", ")}; the server's own log shows`);
  detail(`${after} tools/call for write_like: it was never contacted.`);
  check(denied.errorCode === "approval_denied", "the flagged call is denied");
  check(asked.length === 1 && before === 0 && after === 0, "the server never saw write_like");

  const unknown = await connection.toolkit.call("demo__audio", {});
  step("1.8", "call demo__audio {}: the server has it, but it is not in the allowlist");
  detail(`-> errorCode "${unknown.errorCode}"`, 5);
  check(unknown.errorCode === "unknown_tool", "a tool outside the allowlist is refused");
  check(!(await readServerCalls(logFile)).has("audio"), "the server never saw audio");

  // A port the system just handed out and nobody listens on any more.
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const downPort = (probe.addr as Deno.NetAddr).port;
  probe.close();
  step("1.9", `connect() to http://127.0.0.1:${downPort}/mcp, where nothing listens:`);
  const down = await connect(`http://127.0.0.1:${downPort}/mcp`, {
    id: "down",
    allow: ["echo"],
    transport: { dangerouslyAllowLoopback: true, timeoutMs: 10_000 },
  }).then(
    async (unexpected) => {
      await unexpected.close();
      return undefined;
    },
    (error: unknown) => error,
  );
  detail(
    `-> rejects: ${down instanceof ConnectError ? `${down.name} ${down.code}` : "nothing"}`,
    5,
  );
  if (down instanceof ConnectError) detail(down.message, 5);
  check(
    down instanceof ConnectError && down.code === "transport_failed",
    "a server that cannot be reached rejects connect() with its code",
  );
  detail("With several servers, connectAll() keeps the ones that came up: a down server is");
  detail("failed in report() with the reason, its tools answer mcp_server_unavailable, and");
  detail("connection.reconnect(id) tries it again.");
  say();
}

async function platformTeam(root: string): Promise<void> {
  say("2. Platform team: its own SDK session, the Gate, and a person approving a write");
  const dir = `${root}/records`;
  const ledger = `${root}/write-ledger.jsonl`;
  const db = `${root}/approvals.db`;
  await Deno.mkdir(dir);

  const client = new Client({ name: "demo-platform", version: "1.0.0" }, {
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });
  const transport = new StdioClientTransport({
    ...writeServerStdioParams({ dir, ledger }, "success"),
    env: getDefaultEnvironment(),
    stderr: "ignore",
  });
  const monitor = new CatalogMonitor();
  transport.onmessage = monitor.onMessage;
  cleanups.push(async () => {
    monitor.close();
    await client.close();
  });
  await withTimeout(client.connect(transport), "the write server answers the handshake");
  if (transport.pid !== null) serverPids.push(transport.pid);
  monitor.acceptProtocolVersion(client.getNegotiatedProtocolVersion());
  step("2.1", "The team's own v2 SDK Client runs a separate write server over stdio");
  detail(
    `(PID ${transport.pid}); it writes files into a temp dir and keeps its own fsync'd ledger.`,
  );

  const writes = await discoverWriteTools(client, "records", {
    write_record: {
      localName: "save_record",
      policy: { mode: "confirm", title: "Save a record", effect: "write" },
      effect: "write",
      scope: (_state, args) => String(args.key).startsWith("team-a-") ? undefined : "other team",
      bindingId: "records.save",
      bindingRevision: "1",
      scopeId: "team-a",
      scopeRevision: "1",
    },
  }, { monitor });
  const entry = writes.snapshot.entries[0];
  step("2.2", `discoverWriteTools binds write_record as ${entry.localName}; the write catalog`);
  detail(`is frozen and pinned: ${writes.snapshot.revisionDigest.slice(0, 23)}...`);

  const store = await LibsqlApprovalStore.open(db);
  cleanups.push(() => store.close());
  const gate = new Gate({ catalogs: [writes], store });
  step("2.3", "A Gate with a LibsqlApprovalStore on a temp file and no approve callback:");
  detail("every write waits for a person.");

  const key = "team-a-demo";
  const call = { id: "call-1", name: "save_record", arguments: { key, value: SYNTHETIC_VALUE } };
  const [pending] = await gate.run([call], { runId: "run-1" });
  step("2.4", `The model calls save_record ${JSON.stringify(call.arguments)}`);
  detail(`-> errorCode "${pending.errorCode}", effect "${pending.effect}"`, 5);
  const sentEarly = receivedCounts(await readLedger(ledger)).get(key) ?? 0;
  detail(`The server's ledger shows ${sentEarly} write_record calls: nothing was sent.`);
  check(pending.errorCode === "approval_pending" && pending.effect === "not_started", "pending");
  check(sentEarly === 0, "nothing reaches the server while pending");
  const approvalId = pending.approvalId;
  check(approvalId !== undefined, "a pending write has an approval id");

  step("2.5", "A person, in another terminal, lists what waits (a separate process):");
  command("deno task sluice approvals list --state pending --db approvals.db");
  const list = await approvalsCli(["list", "--state", "pending", "--db", db]);
  quote(list.stdout);
  check(list.code === 0 && list.stdout.includes(approvalId), "the CLI lists the approval");

  command(`deno task sluice approvals approve ${approvalId} \\`);
  say(`${INDENT}      --by alice --note "checked the key" --db approvals.db`);
  const approve = await approvalsCli([
    "approve",
    approvalId,
    "--by",
    "alice",
    "--note",
    "checked the key",
    "--db",
    db,
  ]);
  quote(approve.stdout);
  check(approve.code === 0, "the CLI approves");

  const done = await gate.resume(approvalId);
  step("2.6", "Back in the host, once the person has decided: gate.resume(approvalId)");
  detail(`-> ${envelopeLine(done)}`, 5);
  check(done.errorCode === undefined && done.effect === "committed", "the write is committed");
  check(done.receipt !== undefined, "the commit carries a receipt");
  detail(`receipt ${done.receipt.resultDigest.slice(0, 23)}... is stored with the approval.`);

  const events = await readLedger(ledger);
  const written = await Deno.readTextFile(`${dir}/${key}`).catch(() => null);
  step("2.7", "The server's own ledger, read independently of sluice:");
  detail(`${key}: ${callTrail(events, key).join(" -> ")}`);
  detail(
    `write_record calls received: ${receivedCounts(events).get(key) ?? 0}; file ${
      written === null ? "missing" : `holds "${written}"`
    }.`,
  );
  check(receivedCounts(events).get(key) === 1, "exactly one write reached the server");
  check(written === SYNTHETIC_VALUE, "the record file was written");

  const again = await gate.resume(approvalId);
  const afterAgain = receivedCounts(await readLedger(ledger)).get(key) ?? 0;
  step("2.8", "gate.resume(approvalId) once more (a retry, a second worker, a restart):");
  detail(`-> errorCode "${again.errorCode}", effect "${again.effect}"`, 5);
  detail(`The ledger still shows ${afterAgain} write_record call: an approval is used once.`);
  check(again.errorCode === "approval_already_claimed", "a second resume is refused");
  check(afterAgain === 1, "no second dispatch");
  say();
}

function schemaProfile(): void {
  say("3. The schema profile: a schema sluice cannot check is refused, not trimmed");
  const schema = {
    type: "object",
    properties: { query: { type: "string", "x-vendor-hint": "fuzzy" } },
  };
  step("3.1", `checkSchema(${JSON.stringify(schema)})`);
  const result = checkSchema(schema);
  check(!result.ok, "the schema is refused");
  for (const problem of result.problems) {
    detail(`-> code "${problem.code}", keyword "${problem.keyword}", path "${problem.path}"`, 5);
  }
  check(
    result.problems.some((p) =>
      p.code === "schema_keyword_unsupported" && p.keyword === "x-vendor-hint" &&
      p.path === "/properties/query/x-vendor-hint"
    ),
    "the problem names the keyword and its JSON Pointer",
  );
  detail("Nothing is stripped or relaxed: a tool with this schema is skipped (see 1.3), or its");
  detail("owner supplies a spec of their own.");
  say();
}

async function main(): Promise<number> {
  const started = performance.now();
  const root = await Deno.makeTempDir({ prefix: "sluice-demo-" });
  say("sluice demo: everything runs on this machine (127.0.0.1 and a temp directory).");
  say();
  let code = 0;
  let cleanedUp = true;
  try {
    await agentDeveloper(root);
    await platformTeam(root);
    schemaProfile();
  } catch (error) {
    code = 1;
    const what = error instanceof DemoCheckFailed ? `a demo check failed: ${error.message}` : error;
    console.error("demo stopped:", what);
  } finally {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        cleanedUp = false;
        console.error("cleanup failed:", error);
      }
    }
    await Deno.remove(root, { recursive: true });
    for (const pid of serverPids) {
      if (!(await processGone(pid))) {
        cleanedUp = false;
        console.error(`cleanup failed: server process ${pid} is still running`);
      }
    }
  }
  if (!cleanedUp) return 1;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  say(
    `Cleaned up: server processes ${serverPids.join(", ")} stopped, ${root} removed ` +
      `(${seconds} s).`,
  );
  return code;
}

Deno.exit(await main());
