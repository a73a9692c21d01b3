/**
 * Approval-store benchmark: full store cycles (prepare, approve, claim, record `committed`) per
 * second on a libSQL file with WAL and `synchronous=FULL`, next to a bare libSQL loop that commits
 * the same number of single-row write transactions on the same kind of file.
 *
 * Each cycle is 4 durable write transactions (one per store call; each is `BEGIN IMMEDIATE`, the
 * row change and its event, `COMMIT`). The bare loop commits 4 one-row `INSERT` transactions per
 * cycle through the same client API, so the ratio is store time / bare time for equal fsyncs.
 * Rounds alternate store and bare runs; the median of each is reported. The caller's own
 * arguments digest is computed before timing starts (it is the gate's cost, not the store's);
 * the store's check of that digest is timed. Both loops also run on `:memory:` to show the CPU
 * cost alone; on a fast disk that CPU cost, not the fsync, decides the ratio.
 *
 * `deno run -A scripts/bench/approvals.ts [cycles] [rounds]`
 *
 * @module
 */
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { digest } from "../../src/identity/mod.ts";

/** One measured figure. */
export interface BenchRow {
  /** What was measured. */
  readonly name: string;
  /** The figure. */
  readonly value: number;
  /** Its unit. */
  readonly unit: string;
}

/** Durable write transactions per store cycle: prepare, approve, claim, record. */
export const TRANSACTIONS_PER_WRITE = 4;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

async function storeRun(
  dir: string | undefined,
  round: number,
  cycles: number,
): Promise<number> {
  const store = await LibsqlApprovalStore.open(
    dir === undefined ? ":memory:" : join(dir, `store-${round}.db`),
  );
  try {
    const settings = await store.durability();
    if (dir !== undefined && (settings.journalMode !== "wal" || settings.synchronous < 2)) {
      throw new Error("the bench store is not WAL + synchronous=FULL");
    }
    const base = {
      serverId: "bench",
      toolName: "update_doc",
      remoteToolName: "documents.update",
      catalogDigest: "sha256:" + "a".repeat(64),
      bindingId: "bench-binding",
      scopeId: "bench-scope",
      scopeRevision: "1",
      effect: "write" as const,
    };
    // The caller (the gate) computes the arguments digest; the store recomputes it to check it.
    const calls = [];
    for (let i = 0; i < cycles; i++) {
      const args = { document: `doc-${i}`, title: "bench" };
      calls.push({ args, argumentsDigest: await digest(args) });
    }
    const started = performance.now();
    for (let i = 0; i < cycles; i++) {
      const { args, argumentsDigest } = calls[i];
      const { id } = await store.prepare({
        ...base,
        arguments: args,
        argumentsDigest,
        expiresAt: Date.now() + 60_000,
        runId: `run-${round}`,
        callId: `call-${i}`,
      });
      await store.approve(id, { by: "bench" });
      const claim = await store.claim(id, { ...base, argumentsDigest });
      if (!claim.ok) throw new Error(`claim refused: ${claim.code}`);
      await store.recordOutcome(id, {
        outcome: "committed",
        receipt: { resultDigest: argumentsDigest, at: Date.now() },
      });
    }
    const elapsed = performance.now() - started;
    const committed = await store.list({ state: "committed" });
    if (committed.length !== cycles) throw new Error("not every cycle committed");
    return elapsed;
  } finally {
    await store.close();
  }
}

async function bareRun(
  dir: string | undefined,
  round: number,
  transactions: number,
): Promise<number> {
  const client = createClient({
    url: dir === undefined ? ":memory:" : `file:${join(dir, `bare-${round}.db`)}`,
    concurrency: 1,
  });
  try {
    if (dir !== undefined) {
      await client.execute("PRAGMA journal_mode = WAL");
      await client.execute("PRAGMA synchronous = FULL");
      const synchronous = Number((await client.execute("PRAGMA synchronous")).rows[0][0]);
      if (synchronous < 2) throw new Error("the bare loop is not synchronous=FULL");
    }
    await client.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
    const started = performance.now();
    for (let i = 0; i < transactions; i++) {
      const tx = await client.transaction("write");
      await tx.execute({ sql: "INSERT INTO t (v) VALUES (?)", args: [`row-${i}`] });
      await tx.commit();
      tx.close();
    }
    return performance.now() - started;
  } finally {
    client.close();
  }
}

/** Runs the benchmark and returns its rows. */
export async function benchApprovals(
  options: { cycles?: number; rounds?: number } = {},
): Promise<BenchRow[]> {
  const cycles = options.cycles ?? 200;
  const rounds = options.rounds ?? 3;
  const dir = await Deno.makeTempDir({ prefix: "sluice-bench-approvals-" });
  try {
    await storeRun(dir, -1, 10); // warm-up: module load, native driver, JIT
    await bareRun(dir, -1, 10 * TRANSACTIONS_PER_WRITE);
    const storeMs: number[] = [];
    const bareMs: number[] = [];
    for (let round = 0; round < rounds; round++) {
      storeMs.push(await storeRun(dir, round, cycles));
      bareMs.push(await bareRun(dir, round, cycles * TRANSACTIONS_PER_WRITE));
    }
    const store = median(storeMs);
    const bare = median(bareMs);
    // The same loops without a file: what each costs in CPU alone, without fsync.
    const storeCpu = await storeRun(undefined, 0, cycles);
    const bareCpu = await bareRun(undefined, 0, cycles * TRANSACTIONS_PER_WRITE);
    return [
      {
        name: "approval store cycles (libSQL file, WAL, synchronous=FULL)",
        value: cycles / (store / 1000),
        unit: "cycles/s",
      },
      {
        name: "bare libSQL write transactions",
        value: (cycles * TRANSACTIONS_PER_WRITE) / (bare / 1000),
        unit: "tx/s",
      },
      {
        name: "bare loop, same transactions per cycle",
        value: cycles / (bare / 1000),
        unit: "cycles/s",
      },
      {
        name: "bare time per durable transaction (file)",
        value: (bare / (cycles * TRANSACTIONS_PER_WRITE)) * 1000,
        unit: "us",
      },
      {
        name: "store CPU per cycle (:memory:, no fsync)",
        value: (storeCpu / cycles) * 1000,
        unit: "us",
      },
      {
        name: "bare CPU per cycle (:memory:, same transactions)",
        value: (bareCpu / cycles) * 1000,
        unit: "us",
      },
      { name: "durable transactions per write", value: TRANSACTIONS_PER_WRITE, unit: "tx" },
      { name: "store time / bare time (equal transactions)", value: store / bare, unit: "x" },
    ];
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  const cycles = Number(Deno.args[0] ?? 200);
  const rounds = Number(Deno.args[1] ?? 3);
  console.log(`approval store bench: ${cycles} cycles x ${rounds} rounds (median)`);
  for (const row of await benchApprovals({ cycles, rounds })) {
    const value = row.unit === "x" ? row.value.toFixed(2) : row.value.toFixed(0);
    console.log(`${row.name.padEnd(62)} ${value.padStart(8)} ${row.unit}`);
  }
}
