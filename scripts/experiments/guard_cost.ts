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
import { startMemoryWriteServer } from "../../fixtures/write_server_memory.ts";
import { inlineGates } from "../bench/write_path.ts";
import { median } from "../bench/types.ts";
import { bareLoop, CYCLES, gateCycles, ratioRange, rotatedRounds } from "./gate_rounds.ts";

/** Drops every trigger on `approvals`, on a connection of its own, after the open check. */
function dropGuards(path: string): void {
  const db = new Database(path);
  try {
    const names = db.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'approvals'",
    ).raw(true).all() as string[][];
    for (const [name] of names) db.exec(`DROP TRIGGER ${name}`);
  } finally {
    db.close();
  }
}

const dir = await Deno.makeTempDir({ prefix: "sluice-guard-cost-" });
const server = await startMemoryWriteServer();
const gateOn = await inlineGates(server);
const bare = bareLoop(dir);
const guarded = await LibsqlApprovalStore.open(`${dir}/guarded.db`);
const unguarded = await LibsqlApprovalStore.open(`${dir}/unguarded.db`);
dropGuards(`${dir}/unguarded.db`);
const [bareMs, withGuards, without] = await rotatedRounds([
  bare.loop,
  gateCycles(gateOn(guarded), "guarded"),
  gateCycles(gateOn(unguarded), "unguarded"),
], Number(Deno.args[0] ?? 50));
console.log(`bare durable transaction: ${(median(bareMs) * 1000 / (CYCLES * 4)).toFixed(0)} us`);
for (const [name, gate] of [["guarded", withGuards], ["no guards", without]] as const) {
  console.log(
    `${name.padEnd(9)} ${(median(gate) * 1000 / CYCLES).toFixed(0)} us per write, ` +
      `${ratioRange(gate, bareMs)} the bare loop`,
  );
}
console.log(`no guards / guarded, per round: ${ratioRange(without, withGuards)}`);
for (const store of [guarded, unguarded]) await store.close();
bare.close();
await server.close();
await Deno.remove(dir, { recursive: true });
