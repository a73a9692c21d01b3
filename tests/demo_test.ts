// `deno task demo` as a newcomer runs it: a separate process, which must exit 0 (the demo checks
// every claim it prints against the servers' own logs and ledgers, and exits 1 when one does not
// hold), print the key facts of each story in order, stop every server process it started and
// remove its temporary directory.
import assert from "node:assert/strict";
import { processGone } from "../fixtures/write_server_launch.ts";

const DEMO = new URL("../scripts/demo.ts", import.meta.url).pathname;
const ROOT = new URL("..", import.meta.url).pathname;
/** Generous bound: the demo takes about a second here; CI machines are slower. */
const DEMO_TIMEOUT_MS = 90_000;

async function runDemo(): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", DEMO],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), DEMO_TIMEOUT_MS);
  try {
    const output = await child.output();
    const decoder = new TextDecoder();
    return {
      code: output.code,
      stdout: decoder.decode(output.stdout),
      stderr: decoder.decode(output.stderr),
    };
  } finally {
    clearTimeout(timer);
  }
}

/** Asserts that every fact appears in `text`, in this order. */
function assertInOrder(text: string, facts: readonly (string | RegExp)[]): void {
  let from = 0;
  for (const fact of facts) {
    const rest = text.slice(from);
    const match = typeof fact === "string"
      ? { index: rest.indexOf(fact), length: fact.length }
      : (() => {
        const found = fact.exec(rest);
        return { index: found?.index ?? -1, length: found?.[0].length ?? 0 };
      })();
    assert.ok(match.index >= 0, `missing (in order): ${fact}`);
    from += match.index + match.length;
  }
}

Deno.test("deno task demo: exits 0, tells the three stories, cleans up after itself", async () => {
  const { code, stdout, stderr } = await runDemo();
  assert.equal(code, 0, `demo failed:\n${stdout}\n${stderr}`);
  assert.equal(stderr, "", "a clean run writes nothing to stderr");
  // Wrapping is presentation; compare the text with runs of whitespace collapsed.
  const text = stdout.replace(/\s+/g, " ");

  assertInOrder(text, [
    "1. Agent developer",
    /listens at http:\/\/127\.0\.0\.1:\d+\/mcp/,
    "dangerouslyAllowLoopback: true (demo only",
    "ready demo__add needs approval (default)",
    "ready demo__echo no approval (pre_approved)",
    "ready demo__image no approval (pre_approved)",
    "ready demo__write_like needs approval (destructive_hint)",
    "skipped demo__unsupported_schema mcp_schema_unsupported",
    // report() names no server text: x-vendor of property q, by position.
    'an unknown keyword at "/properties/[0]/[1]" (`sluice inspect` shows the names)',
    "toAnthropicTools() is what the model gets; its tool names: demo__add, demo__echo, demo__image, demo__write_like",
    '-> { text ["hello from the model"] }',
    'errorCode "mcp_result_unsupported"',
    'errorCode "approval_denied"',
    "0 tools/call for write_like: it was never contacted",
    'errorCode "unknown_tool"',
    /connect\(\) to http:\/\/127\.0\.0\.1:\d+\/mcp, where nothing listens/,
    "-> rejects: ConnectError transport_failed",
    "check that the server is running",
    "connection.reconnect(id) tries it again",
    "2. Platform team",
    'errorCode "approval_pending", effect "not_started"',
    "The server's ledger shows 0 write_record calls",
    "approvals list --state pending",
  ]);

  // The person's view: the id the CLI lists is the one approved and then resumed.
  const listed = /│ ([0-9a-f-]{36}) +pending +write +records\/save_record/.exec(stdout);
  assert.ok(listed, "the CLI lists the pending write");
  const approvalId = listed[1];
  assertInOrder(text, [
    `approvals approve ${approvalId}`,
    `│ approval: ${approvalId}`,
    "│ state: approved",
    "│ decision: approved by alice",
    '"value": "sluice-synthetic-v1"',
    '"written":true}, effect "committed" }',
    "received -> writing -> written -> responding",
    "write_record calls received: 1;",
    'errorCode "approval_already_claimed", effect "committed"',
    "The ledger still shows 1 write_record call",
    "3. The schema profile",
    'code "schema_keyword_unsupported", keyword "x-vendor-hint", path ' +
    '"/properties/query/x-vendor-hint"',
  ]);

  // Clean-up, checked from outside: the servers' PIDs are gone and the temp dir is removed.
  const cleaned = /Cleaned up: server processes ([\d, ]+) stopped, (\S+) removed/.exec(text);
  assert.ok(cleaned, "the demo reports its clean-up");
  const pids = cleaned[1].split(",").map((pid) => Number(pid.trim()));
  assert.equal(pids.length, 2, "two server processes (HTTP read, stdio write)");
  for (const pid of pids) assert.ok(await processGone(pid), `server process ${pid} is gone`);
  await assert.rejects(Deno.stat(cleaned[2]), Deno.errors.NotFound, "temp dir removed");
});
