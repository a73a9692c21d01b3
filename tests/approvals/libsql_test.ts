/**
 * libSQL-specific proof: durability pragmas read back, the state machine enforced by SQL
 * triggers against raw UPDATEs, versioned migrations, restart durability across processes, URL
 * handling, and the 8-process claim race.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { LibsqlApprovalStore, resolveStoreUrl } from "../../libsql.ts";
import { discoverWriteTools, Gate, SluiceError } from "../../mod.ts";
import { SYNTHETIC_VALUE, WRITE_TOOL } from "../../fixtures/write_server.ts";
import { startMemoryWriteServer } from "../../fixtures/write_server_memory.ts";
import { writeBinding } from "../../fixtures/write_bindings.ts";
import { checkDurability, readDurability } from "../../src/approvals/libsql/durability.ts";
import { LATEST_SCHEMA_VERSION } from "../../src/approvals/sqlite/migrations.ts";
import type { ApprovalRecord, ClaimResult } from "../../src/approvals/mod.ts";
import { expectationFor, makeRequest } from "../../fixtures/approval_requests.ts";
import { rejectsWith } from "../support/approval_store_suite.ts";
import { rawSqlAttempts, type SeededIds, seedStates } from "../support/raw_sql_attempts.ts";

const deno = Deno.execPath();
const child = new URL("../support/approvals_child.ts", import.meta.url).pathname;
const racer = new URL("../support/claim_racer.ts", import.meta.url).pathname;

async function withDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "sluice-libsql-" });
  try {
    await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Runs the child script in its own process and returns its parsed JSON output. */
async function runChild(...args: string[]): Promise<unknown> {
  const output = await new Deno.Command(deno, {
    args: ["run", "-A", child, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, `child failed: ${stderr}`);
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

Deno.test('a file store is back at synchronous=FULL after a sync "with_next" commit', async () => {
  await withDir(async (dir) => {
    const store = await LibsqlApprovalStore.open(join(dir, "approvals.db"));
    try {
      const { id } = await store.prepare(await makeRequest(Date.now()), { sync: "with_next" });
      await store.approve(id, { by: "ivan" }, { sync: "with_next" });
      // durability() reads what synced commits run at, as the next synced batch would set it.
      assert.equal((await store.durability()).synchronous, 2);
      await store.deny((await store.prepare(await makeRequest(Date.now()))).id, { by: "ivan" });
      assert.equal((await store.get(id))?.state, "approved");
    } finally {
      await store.close();
    }
  });
});

Deno.test("a file store runs WAL with synchronous=FULL and no driver busy wait, read back", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "approvals.db");
    const store = await LibsqlApprovalStore.open(path, { busyTimeoutMs: 7_000 });
    try {
      assert.equal(store.location.kind, "file");
      assert.deepEqual(await store.durability(), {
        journalMode: "wal",
        synchronous: 2,
        // No driver-level busy wait, whatever busyTimeoutMs says: a lock is waited for with
        // asynchronous retries, so the event loop keeps running (bench write_path measures it).
        busyTimeoutMs: 0,
      });
    } finally {
      await store.close();
    }
    // WAL is a property of the file: a fresh, unconfigured connection sees it too.
    const raw = createClient({ url: `file:${path}` });
    try {
      const pragma = async (name: string) => (await raw.execute(`PRAGMA ${name}`)).rows[0]?.[0];
      assert.equal((await readDurability(pragma)).journalMode, "wal");
      // A connection that lowered synchronous is refused by the same check open() uses.
      await raw.execute("PRAGMA synchronous = NORMAL");
      const lowered = await readDurability(pragma);
      assert.equal(lowered.synchronous, 1);
      assert.throws(() => checkDurability(lowered), { name: "ApprovalError" });
    } finally {
      raw.close();
    }
    assert.throws(
      () => checkDurability({ journalMode: "delete", synchronous: 2, busyTimeoutMs: 0 }),
      (error: unknown) => (error as { code?: string }).code === "approval_store_not_durable",
    );
    checkDurability({ journalMode: "wal", synchronous: 3, busyTimeoutMs: 0 });
  });
});

Deno.test("migrations: versioned, idempotent on reopen, a newer database is refused", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "approvals.db");
    const first = await LibsqlApprovalStore.open(path);
    const request = await makeRequest(Date.now());
    const { id } = await first.prepare(request);
    await first.close();
    const second = await LibsqlApprovalStore.open(`file:${path}`);
    assert.equal((await second.get(id))?.state, "pending");
    await second.close();
    const raw = createClient({ url: `file:${path}` });
    try {
      const versions = await raw.execute("SELECT version FROM schema_version ORDER BY version");
      assert.deepEqual(
        versions.rows.map((row) => Number(row.version)),
        Array.from({ length: LATEST_SCHEMA_VERSION }, (_, index) => index + 1),
      );
      await raw.execute({
        sql: "INSERT INTO schema_version (version, applied_at) VALUES (?, 0)",
        args: [LATEST_SCHEMA_VERSION + 1],
      });
    } finally {
      raw.close();
    }
    await rejectsWith(LibsqlApprovalStore.open(path), "approval_store_schema_too_new");
  });
});

Deno.test("SQL triggers abort illegal transitions and edits made with raw SQL", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "approvals.db");
    const store = await LibsqlApprovalStore.open(path);
    let ids: SeededIds;
    try {
      ids = await seedStates(store);
    } finally {
      await store.close();
    }
    const raw = createClient({ url: `file:${path}` });
    const snapshot = async () => (await raw.execute("SELECT * FROM approvals ORDER BY id")).rows;
    try {
      const before = JSON.stringify(await snapshot());
      const attempts = rawSqlAttempts(ids);
      for (const [label, sql, args, message] of attempts) {
        await assert.rejects(raw.execute({ sql, args }), message, label);
      }
      assert.equal(JSON.stringify(await snapshot()), before, "no row changed");
      // The triggers are not a blanket refusal: a legal transition written by hand goes through.
      const legal = await raw.execute({
        sql:
          "UPDATE approvals SET state = 'approved', decided_by = 'carol', decided_at = 1 WHERE id = ?",
        args: [ids.pending2],
      });
      assert.equal(legal.rowsAffected, 1);
    } finally {
      raw.close();
    }
  });
});

Deno.test("restart durability: another process approves and claims; this one sees it", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "approvals.db");
    const request = await makeRequest(Date.now(), { runId: "run-r", callId: "call-1" });
    const second = await makeRequest(Date.now(), { runId: "run-r", callId: "call-2" });
    let store = await LibsqlApprovalStore.open(path);
    const { id } = await store.prepare(request);
    const other = await store.prepare(second);
    await store.approve(other.id, { by: "alice" });
    await store.close();

    const approved = await runChild(path, "approve", id, "bob") as ApprovalRecord;
    assert.equal(approved.state, "approved");
    const claimedThere = await runChild(
      path,
      "claim",
      other.id,
      JSON.stringify(expectationFor(second)),
    ) as ClaimResult;
    assert.equal(claimedThere.ok, true);

    store = await LibsqlApprovalStore.open(path);
    try {
      const seen = await store.get(id);
      assert.equal(seen?.state, "approved");
      assert.equal(seen?.decision?.by, "bob");
      assert.equal((await store.get(other.id))?.state, "claimed");
      const again = await store.claim(other.id, expectationFor(second));
      assert.equal(again.ok, false);
      assert.equal(!again.ok && again.code, "approval_already_claimed");
      // The same call prepared again after the restart is the same approval, not a new one.
      assert.equal((await store.prepare(request)).id, id);
      const mine = await store.claim(id, expectationFor(request));
      assert.equal(mine.ok, true);
      await store.recordOutcome(id, { outcome: "unknown", reason: "mcp_disconnected" });
    } finally {
      await store.close();
    }
    const final = await runChild(path, "get", id) as ApprovalRecord;
    assert.equal(final.state, "unknown");
    assert.equal(final.outcomeReason, "mcp_disconnected");
  });
});

Deno.test("store URLs: paths become file:, servers are libsql:/https:, the rest is refused", async () => {
  assert.deepEqual(resolveStoreUrl("/var/lib/sluice/a.db"), {
    kind: "file",
    url: "file:/var/lib/sluice/a.db",
  });
  assert.deepEqual(resolveStoreUrl("data/a.db"), { kind: "file", url: "file:data/a.db" });
  assert.deepEqual(resolveStoreUrl("C:\\data\\a.db"), { kind: "file", url: "file:C:\\data\\a.db" });
  assert.deepEqual(resolveStoreUrl("file:///tmp/a.db"), { kind: "file", url: "file:///tmp/a.db" });
  assert.deepEqual(resolveStoreUrl(":memory:"), { kind: "memory", url: ":memory:" });
  // Servers cannot run here (no libSQL server on this machine): only the URL handling is tested.
  assert.equal(resolveStoreUrl("libsql://approvals-acme.turso.io").kind, "remote");
  assert.equal(resolveStoreUrl("https://db.example.com").kind, "remote");
  assert.equal(resolveStoreUrl("http://127.0.0.1:8080").kind, "remote");
  for (
    const bad of [
      "",
      "http://db.example.com",
      "ftp://db.example.com/a.db",
      "libsql://user:secret@approvals.turso.io",
      "a.db?mode=ro",
      "file:",
    ]
  ) {
    assert.throws(
      () => resolveStoreUrl(bad),
      (error: unknown) => (error as { code?: string }).code === "approval_store_url_invalid",
      bad,
    );
  }
  await rejectsWith(LibsqlApprovalStore.open("ftp://x/y"), "approval_store_url_invalid");
  const memory = await LibsqlApprovalStore.open(":memory:");
  try {
    assert.equal(memory.durable, false);
    const request = await makeRequest(Date.now());
    assert.equal((await memory.prepare(request)).state, "pending");
  } finally {
    await memory.close();
  }
});

/** Reads stdout lines of a child process as they arrive. */
class LineReader {
  #lines: string[] = [];
  #waiters: (() => void)[] = [];
  #done = false;
  readonly finished: Promise<void>;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.finished = (async () => {
      let buffered = "";
      for await (const text of stream.pipeThrough(new TextDecoderStream())) {
        buffered += text;
        let newline: number;
        while ((newline = buffered.indexOf("\n")) >= 0) {
          this.#lines.push(buffered.slice(0, newline));
          buffered = buffered.slice(newline + 1);
        }
        this.#wake();
      }
      this.#done = true;
      this.#wake();
    })();
  }

  #wake() {
    for (const wake of this.#waiters.splice(0)) wake();
  }

  async next(timeoutMs: number): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (this.#lines.length === 0) {
      if (this.#done) throw new Error("process ended");
      const left = deadline - Date.now();
      if (left <= 0) throw new Error("timed out waiting for a line");
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        timer = setTimeout(resolve, left);
      });
      clearTimeout(timer);
    }
    return this.#lines.shift()!;
  }
}

Deno.test("race: 8 processes claim the same approved call at once, 20 times; exactly one wins", async () => {
  const processes = 8;
  const rounds = 20;
  await withDir(async (dir) => {
    const path = join(dir, "approvals.db");
    const store = await LibsqlApprovalStore.open(path);
    const request = await makeRequest(Date.now(), {}, undefined, 10 * 60_000);
    const ids: string[] = [];
    try {
      for (let k = 0; k < rounds; k++) {
        const { id } = await store.prepare(request);
        await store.approve(id, { by: "alice" });
        ids.push(id);
      }
    } finally {
      await store.close();
    }
    const planPath = join(dir, "plan.json");
    await Deno.writeTextFile(
      planPath,
      JSON.stringify({ ids, expectation: expectationFor(request) }),
    );

    const children = Array.from({ length: processes }, () =>
      new Deno.Command(deno, {
        args: ["run", "-A", racer, path, planPath],
        stdin: "piped",
        stdout: "piped",
        stderr: "inherit",
      }).spawn());
    const readers = children.map((c) => new LineReader(c.stdout));
    const writers = children.map((c) => c.stdin.getWriter());
    const wins = new Array<number>(processes).fill(0);
    let overlapping = 0;
    try {
      for (const reader of readers) assert.equal(await reader.next(30_000), "ready");
      const encoder = new TextEncoder();
      for (let k = 0; k < rounds; k++) {
        // Release all eight together: the line reaches every process back to back.
        await Promise.all(writers.map((writer) => writer.write(encoder.encode(`${k}\n`))));
        const answers = await Promise.all(readers.map((reader) => reader.next(15_000)));
        const windows: [number, number][] = [];
        const outcomes = answers.map((line) => {
          const [round, outcome, start, end] = line.split(" ");
          assert.equal(Number(round), k, line);
          windows.push([Number(start), Number(end)]);
          return outcome;
        });
        // Reported, not asserted (timing): did every claim start before the first one ended?
        const firstEnd = Math.min(...windows.map(([, end]) => end));
        if (windows.every(([start]) => start < firstEnd)) overlapping++;
        assert.equal(outcomes.filter((o) => o === "claimed").length, 1, `round ${k}: ${outcomes}`);
        assert.equal(
          outcomes.filter((o) => o === "approval_already_claimed").length,
          processes - 1,
          `round ${k}: every loser is refused, none fails busy: ${outcomes}`,
        );
        wins[outcomes.indexOf("claimed")]++;
      }
    } finally {
      for (const writer of writers) await writer.close().catch(() => undefined);
      await Promise.all(children.map((c) => c.status));
      await Promise.all(readers.map((r) => r.finished));
    }
    console.log(
      `race winners by process: ${wins.join(" ")}; rounds where all 8 claims overlapped: ` +
        `${overlapping}/${rounds}`,
    );
    const after = await LibsqlApprovalStore.open(path);
    try {
      for (const id of ids) {
        assert.equal((await after.get(id))?.state, "claimed");
        const claims = (await after.events(id)).filter((e) => e.to === "claimed");
        assert.equal(claims.length, 1, "one claim event per approval");
      }
    } finally {
      await after.close();
    }
  });
});

/** Holds the write lock of the database at `path` from a connection of this test's own. */
async function holdWriteLock(path: string) {
  const other = createClient({ url: `file:${path}` });
  const tx = await other.transaction("write");
  return () => {
    tx.close();
    other.close();
  };
}

Deno.test("a database locked past busyTimeoutMs: approval_store_busy, sluice's text, nothing lost", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "approvals.db");
    const store = await LibsqlApprovalStore.open(path, { busyTimeoutMs: 150 });
    try {
      const request = await makeRequest(Date.now());
      const approval = await store.prepare({ ...request, runId: "run", callId: "first" });
      const release = await holdWriteLock(path);
      let failure: unknown;
      try {
        await store.approve(approval.id, { by: "alice" }).catch((error) => failure = error);
        await rejectsWith(
          store.prepare({ ...request, runId: "run", callId: "second" }),
          "approval_store_busy",
        );
      } finally {
        release();
      }
      assert.ok(failure instanceof SluiceError);
      assert.equal(failure.code, "approval_store_busy");
      assert.doesNotMatch(failure.message, /database is locked|SQLITE/i, "no driver text");
      assert.ok((failure as Error).cause !== undefined, "the driver's error is kept as cause");
      // Nothing half-done: still pending, no second approval; the same calls now succeed.
      assert.equal((await store.get(approval.id))?.state, "pending");
      assert.equal((await store.list()).length, 1);
      assert.equal((await store.approve(approval.id, { by: "alice" })).state, "approved");
      const claim = await store.claim(approval.id, expectationFor(request));
      assert.equal(claim.ok, true);
      assert.deepEqual(
        (await store.events(approval.id)).map((event) => event.to),
        ["pending", "approved", "claimed"],
      );
    } finally {
      await store.close();
    }
  });
});

Deno.test("a gate on a locked store sends nothing and says approval_store_error", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "approvals.db");
    const server = await startMemoryWriteServer();
    const store = await LibsqlApprovalStore.open(path, { busyTimeoutMs: 150 });
    try {
      const writes = await discoverWriteTools(server.client, "fixture", {
        write_record: writeBinding(),
      }, { monitor: server.monitor });
      const gate = new Gate({ catalogs: [writes], store, approve: () => true });
      const call = {
        id: "c1",
        name: "save_record",
        arguments: { key: "k", value: SYNTHETIC_VALUE },
      };
      const release = await holdWriteLock(path);
      let envelope;
      try {
        [envelope] = await gate.run([call], { runId: "run" });
      } finally {
        release();
      }
      assert.equal(envelope.errorCode, "approval_store_error");
      assert.equal(envelope.effect, "not_started");
      assert.equal(server.received.get(WRITE_TOOL) ?? 0, 0, "nothing was sent");
      assert.equal((await store.list()).length, 0);
      // Unlocked, the same run and call go through once.
      const [retried] = await gate.run([call], { runId: "run" });
      assert.equal(retried.effect, "committed");
      assert.equal(server.received.get(WRITE_TOOL), 1);
    } finally {
      await store.close();
      await server.close();
    }
  });
});

Deno.test("a store that cannot be opened: approval_store_error in sluice's words", async () => {
  await withDir(async (dir) => {
    await assert.rejects(
      LibsqlApprovalStore.open(join(dir, "missing-directory", "approvals.db")),
      (error: unknown) => {
        assert.ok(error instanceof SluiceError);
        assert.equal(error.code, "approval_store_error");
        // At most the driver's code: never its text, which names the path.
        assert.match(error.message, /^the approval database failed while opening it( \(\w+\))?$/);
        assert.ok(error.cause !== undefined, "the driver's error is kept as cause");
        return true;
      },
    );
  });
});

Deno.test("a tampered database is refused at open: approval_store_schema_invalid", async () => {
  const tamperings: [string, string[]][] = [
    ["a trigger dropped", ["DROP TRIGGER approvals_transition"]],
    ["a trigger replaced by a weaker one", [
      "DROP TRIGGER approvals_terminal",
      `CREATE TRIGGER approvals_terminal BEFORE UPDATE ON approvals
        WHEN 0 BEGIN SELECT RAISE(ABORT, 'never'); END`,
    ]],
    ["a foreign trigger added", [
      `CREATE TRIGGER sneaky AFTER UPDATE ON approvals
        BEGIN UPDATE approval_grants SET note = NULL WHERE 0; END`,
    ]],
    ["a state change allowed to leave out its instant", [
      "DROP TRIGGER approvals_transition_instant",
    ]],
  ];
  for (const [label, statements] of tamperings) {
    await withDir(async (dir) => {
      const path = join(dir, "approvals.db");
      const store = await LibsqlApprovalStore.open(path);
      const { id } = await store.prepare(await makeRequest(Date.now()));
      await store.close();
      const raw = createClient({ url: `file:${path}` });
      try {
        for (const sql of statements) await raw.execute(sql);
      } finally {
        raw.close();
      }
      await assert.rejects(LibsqlApprovalStore.open(path), (error: unknown) => {
        assert.ok(error instanceof SluiceError, label);
        assert.equal(error.code, "approval_store_schema_invalid", label);
        return true;
      });
      // The data is untouched; an intact database with the same rows opens.
      const check = createClient({ url: `file:${path}` });
      try {
        const rows = await check.execute({
          sql: "SELECT state FROM approvals WHERE id = ?",
          args: [id],
        });
        assert.equal(rows.rows[0]?.state, "pending", label);
      } finally {
        check.close();
      }
    });
  }
});
