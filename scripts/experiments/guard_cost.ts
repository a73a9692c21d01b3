/**
 * What the SQL-level state machine costs on the write path: gate write cycles (inline approval,
 * the in-memory v2 write server) on two embedded libSQL file stores, one as migrated and one with
 * every trigger on `approvals` dropped after the open check (never a configuration sluice opens:
 * the open check refuses it), against a bare loop of four one-row synced inserts, rounds rotated.
 *
 * ```
 * deno run -A scripts/experiments/guard_cost.ts [rounds]
 * ```
 *
 * Not part of `deno task bench`.
 *
 * @module
 */
import Database from "libsql";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { SYNTHETIC_VALUE } from "../../fixtures/write_server.ts";
import { startMemoryWriteServer } from "../../fixtures/write_server_memory.ts";
import { inlineGates } from "../bench/write_path.ts";
import { median, quantile } from "../bench/types.ts";

const ROUNDS = Number(Deno.args[0] ?? 50);
const CYCLES = 10;
const VARIANTS = ["guarded", "no guards"] as const;
type Variant = typeof VARIANTS[number];

/** Changes a migrated database into the variant (on its own connection, after the open check). */
function reshape(path: string, variant: Variant): void {
  const db = new Database(path);
  try {
    if (variant === "no guards") {
      const names = db.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'approvals'",
      ).raw(true).all() as string[][];
      for (const [name] of names) db.exec(`DROP TRIGGER ${name}`);
    }
  } finally {
    db.close();
  }
}

const dir = await Deno.makeTempDir({ prefix: "sluice-guard-cost-" });
const server = await startMemoryWriteServer();
const gateOn = await inlineGates(server);
const bareDb = new Database(`${dir}/bare.db`);
bareDb.exec("PRAGMA journal_mode = WAL");
bareDb.exec("PRAGMA synchronous = FULL");
bareDb.exec("CREATE TABLE t (id TEXT PRIMARY KEY, state TEXT, body TEXT, at INTEGER)");
const insert = bareDb.prepare("INSERT INTO t (id, state, body, at) VALUES (?, ?, ?, ?)");
let sequence = 0;
const loops: (() => Promise<void>)[] = [() => {
  for (let i = 0; i < CYCLES * 4; i++) {
    insert.run(`b${sequence++}`, "pending", "x".repeat(200), Date.now());
  }
  return Promise.resolve();
}];
const stores: LibsqlApprovalStore[] = [];
for (const variant of VARIANTS) {
  const path = `${dir}/${variant.replace(" ", "-")}.db`;
  const store = await LibsqlApprovalStore.open(path);
  reshape(path, variant);
  stores.push(store);
  const gate = gateOn(store);
  const cycles = async () => {
    for (let i = 0; i < CYCLES; i++) {
      const n = sequence++;
      const [envelope] = await gate.run([
        { id: `c${n}`, name: "save_record", arguments: { key: `k${n}`, value: SYNTHETIC_VALUE } },
      ], { runId: "guard-cost" });
      if (envelope.effect !== "committed") throw new Error(`${variant}: a write did not commit`);
    }
  };
  loops.push(cycles);
}
for (const loop of loops) await loop();
const samples = loops.map(() => [] as number[]);
for (let round = 0; round < ROUNDS; round++) {
  for (let step = 0; step < loops.length; step++) {
    const index = (step + round) % loops.length;
    const start = performance.now();
    await loops[index]();
    samples[index].push(performance.now() - start);
  }
}
const [bare] = samples;
/** Median and quartiles of per-round ratios. */
const range = (ratios: number[]) =>
  `${median(ratios).toFixed(2)}x (${quantile(ratios, 0.25).toFixed(2)}..${
    quantile(ratios, 0.75).toFixed(2)
  })`;
console.log(`bare durable transaction: ${(median(bare) * 1000 / (CYCLES * 4)).toFixed(0)} us`);
for (const [index, variant] of VARIANTS.entries()) {
  const gate = samples[index + 1];
  const ratios = gate.map((ms, round) => ms / bare[round]);
  console.log(
    `${variant.padEnd(9)} ${(median(gate) * 1000 / CYCLES).toFixed(0)} us per write, ` +
      `${median(ratios).toFixed(2)}x the bare loop ` +
      `(${quantile(ratios, 0.25).toFixed(2)}..${quantile(ratios, 0.75).toFixed(2)})` +
      (index === 0 ? "" : `, ${range(gate.map((ms, round) => ms / samples[1][round]))} of guarded`),
  );
}
for (const store of stores) await store.close();
bareDb.close();
await server.close();
await Deno.remove(dir, { recursive: true });
