/**
 * `sluice approvals`: in-process through `runApprovalsCli` with captured output against a real
 * libSQL file, and from another process through `cli.ts`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { runApprovalsCli } from "../../src/cli/approvals.ts";
import { expectationFor, makeRequest, testClock } from "../../fixtures/approval_requests.ts";

const deno = Deno.execPath();
const script = new URL("../../cli.ts", import.meta.url).pathname;

interface Fixture {
  path: string;
  pending: string;
  approved: string;
  unknown: string;
  expiresAt: number;
}

async function withFixture(body: (f: Fixture) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "sluice-cli-" });
  try {
    const path = join(dir, "approvals.db");
    const clock = testClock(Date.now());
    const store = await LibsqlApprovalStore.open(path, { now: clock.now });
    let fixture: Fixture;
    try {
      // Arguments a model might produce, including a terminal escape and a bidi override.
      const pendingRequest = await makeRequest(clock.t, { runId: "run-1", callId: "c-1" }, {
        document: "doc-1",
        title: "Quarterly plan \u001b[31mred\u202e",
      });
      const pending = await store.prepare(pendingRequest);
      const plain = await makeRequest(clock.t);
      const approved = await store.prepare(plain);
      await store.approve(approved.id, { by: "alice" });
      const unknown = await store.prepare(plain);
      await store.approve(unknown.id, { by: "alice" });
      await store.claim(unknown.id, expectationFor(plain));
      await store.recordOutcome(unknown.id, { outcome: "unknown", reason: "mcp_timeout" });
      fixture = {
        path,
        pending: pending.id,
        approved: approved.id,
        unknown: unknown.id,
        expiresAt: pendingRequest.expiresAt,
      };
    } finally {
      await store.close();
    }
    await body(fixture);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function cli(
  argv: string[],
  options: { defaultDb?: string; now?: () => number } = {},
): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runApprovalsCli(argv, {
    stdout: (text) => (out += text),
    stderr: (text) => (err += text),
  }, { openStore: (url) => LibsqlApprovalStore.open(url), ...options });
  return { code, out, err };
}

async function readBack(path: string, id: string) {
  const store = await LibsqlApprovalStore.open(path);
  try {
    return await store.get(id);
  } finally {
    await store.close();
  }
}

Deno.test("cli list and show: everything being approved, terminal-safe", async () => {
  await withFixture(async (f) => {
    const list = await cli(["list", "--db", f.path]);
    assert.equal(list.code, 0, list.err);
    const lines = list.out.trim().split("\n");
    assert.equal(lines.length, 3);
    assert.ok(lines[0].startsWith(f.pending) && lines[0].includes("pending"));
    assert.ok(lines.some((line) => line.startsWith(f.unknown) && line.includes("unknown")));
    assert.ok(lines[0].includes("docs/update_doc"));
    const filtered = await cli(["list", "--state", "unknown", "--db", f.path]);
    assert.deepEqual(filtered.out.trim().split("\n").map((l) => l.split(" ")[0]), [f.unknown]);
    const none = await cli(["list", "--state=denied", `--db=${f.path}`]);
    assert.equal(none.out, "no approvals\n");
    const late = await cli(["list", "--db", f.path], { now: () => f.expiresAt + 1 });
    assert.match(late.out.split("\n")[0], /\(past expiry\)/);

    const show = await cli(["show", f.pending, "--db", f.path]);
    assert.equal(show.code, 0, show.err);
    const text = show.out;
    assert.match(text, /^server: +docs$/m);
    assert.match(text, /^tool: +update_doc \(remote documents\.update\)$/m);
    assert.match(text, /^effect: +write$/m);
    assert.match(text, new RegExp(`^catalog digest: +sha256:${"a".repeat(64)}$`, "m"));
    assert.match(text, /^scope: +sandbox-documents \(revision scope-1\)$/m);
    assert.match(text, new RegExp(`^expires: +${new Date(f.expiresAt).toISOString()}$`, "m"));
    assert.match(text, /^state: +pending$/m);
    assert.match(text, /^run \/ call: +run-1 \/ c-1$/m);
    assert.match(text, /^ {2}"document": "doc-1",$/m, "arguments are pretty JSON");
    assert.match(text, /\\u001b\[31mred\\u202e/, "escapes are shown, not executed");
    assert.ok(!text.includes("\u001b") && !text.includes("\u202e"));
    assert.match(text, /-> pending/);
  });
});

Deno.test("cli approve, deny, reconcile: exit 0 on success, 1 with the code on refusal", async () => {
  await withFixture(async (f) => {
    const approve = await cli([
      "approve",
      f.pending,
      "--by",
      "alice",
      "--note",
      "ok",
      "--db",
      f.path,
    ]);
    assert.equal(approve.code, 0, approve.err);
    assert.match(approve.out, /^decision: +approved by alice at .* \(ok\)$/m);
    const record = await readBack(f.path, f.pending);
    assert.equal(record?.state, "approved");
    assert.equal(record?.decision?.by, "alice");
    assert.equal(record?.decision?.note, "ok");

    const twice = await cli(["deny", f.pending, "--by", "bob", "--db", f.path]);
    assert.equal(twice.code, 1);
    assert.match(twice.err, /^refused: approval_invalid_transition:/);
    assert.equal((await readBack(f.path, f.pending))?.state, "approved");

    const missing = await cli(["show", "no-such-id", "--db", f.path]);
    assert.equal(missing.code, 1);
    assert.match(missing.err, /approval_not_found/);

    const early = await cli([
      "reconcile",
      f.approved,
      "--outcome",
      "committed",
      "--evidence",
      "ledger",
      "--by",
      "ops",
      "--db",
      f.path,
    ]);
    assert.equal(early.code, 1);
    assert.match(early.err, /approval_invalid_transition/);

    const reconcile = await cli([
      "reconcile",
      f.unknown,
      "--outcome",
      "not_started",
      "--evidence",
      "server ledger has no entry",
      "--by",
      "ops-erin",
    ], { defaultDb: f.path });
    assert.equal(reconcile.code, 0, reconcile.err);
    const settled = await readBack(f.path, f.unknown);
    assert.equal(settled?.state, "reconciled");
    assert.deepEqual(
      [settled?.reconciliation?.outcome, settled?.reconciliation?.by],
      ["not_started", "ops-erin"],
    );
    assert.equal(settled?.reconciliation?.evidence, "server ledger has no entry");
  });
});

Deno.test("cli usage errors exit 2 and change nothing", async () => {
  await withFixture(async (f) => {
    const cases = [
      [],
      ["frobnicate"],
      ["approve", f.pending, "--db", f.path],
      ["approve", "--by", "alice", "--db", f.path],
      ["approve", f.pending, f.approved, "--by", "alice", "--db", f.path],
      ["approve", f.pending, "--by", "alice", "--force", "--db", f.path],
      ["approve", f.pending, "--by", "--db", f.path],
      ["list", f.pending, "--db", f.path],
      ["list", "--state", "sideways", "--db", f.path],
      [
        "reconcile",
        f.unknown,
        "--outcome",
        "maybe",
        "--evidence",
        "e",
        "--by",
        "o",
        "--db",
        f.path,
      ],
      ["reconcile", f.unknown, "--outcome", "committed", "--by", "o", "--db", f.path],
      ["approve", f.pending, "--by", "alice"],
    ];
    for (const argv of cases) {
      const result = await cli(argv);
      assert.equal(result.code, 2, argv.join(" "));
      assert.match(result.err, /usage: sluice approvals/);
    }
    assert.equal((await readBack(f.path, f.pending))?.state, "pending");
    assert.equal((await readBack(f.path, f.unknown))?.state, "unknown");
    assert.equal((await cli(["--help"])).code, 0);
  });
});

async function runScript(args: string[], env: Record<string, string> = {}) {
  const output = await new Deno.Command(deno, {
    args: ["run", "-A", script, ...args],
    stdout: "piped",
    stderr: "piped",
    env,
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    out: decoder.decode(output.stdout),
    err: decoder.decode(output.stderr),
  };
}

Deno.test("cli from another process: the script approves; this process sees it", async () => {
  await withFixture(async (f) => {
    const approve = await runScript([
      "approvals",
      "approve",
      f.pending,
      "--by",
      "carol",
      "--db",
      f.path,
    ]);
    assert.equal(approve.code, 0, approve.err);
    assert.match(approve.out, /^decision: +approved by carol/m);
    const record = await readBack(f.path, f.pending);
    assert.equal(record?.state, "approved");
    assert.equal(record?.decision?.by, "carol");

    const refused = await runScript(["approvals", "approve", f.pending, "--by", "dave"], {
      SLUICE_APPROVALS_DB: f.path,
    });
    assert.equal(refused.code, 1);
    assert.match(refused.err, /approval_invalid_transition/);
    const usage = await runScript(["bogus"]);
    assert.equal(usage.code, 2);
  });
});
