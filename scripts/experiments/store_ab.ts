/**
 * An A/B of two checkouts' libSQL file store on the write path, in one process: gate write cycles
 * (this checkout's gate, inline approval, the in-memory v2 write server) on this checkout's store
 * and on the store of another checkout of sluice (for example a `git worktree` of an older
 * commit), against a bare loop of four one-row synced inserts per write, rounds rotated.
 *
 * ```
 * git worktree add /tmp/before <commit>
 * deno run -A scripts/experiments/store_ab.ts /tmp/before [rounds]
 * ```
 *
 * Not part of `deno task bench`.
 *
 * @module
 */
import Database from "libsql";
import { pathToFileURL } from "node:url";
import { LibsqlApprovalStore } from "../../libsql.ts";
import type { ApprovalStore } from "../../mod.ts";
import { SYNTHETIC_VALUE } from "../../fixtures/write_server.ts";
import { startMemoryWriteServer } from "../../fixtures/write_server_memory.ts";
import { inlineGates } from "../bench/write_path.ts";
import { median, quantile } from "../bench/types.ts";

const [other, roundsArg] = Deno.args;
if (other === undefined) throw new Error("usage: store_ab.ts <other checkout> [rounds]");
const ROUNDS = Number(roundsArg ?? 60);
const CYCLES = 10;
const { LibsqlApprovalStore: OtherStore } = await import(
  pathToFileURL(`${await Deno.realPath(other)}/libsql.ts`).href
) as { LibsqlApprovalStore: { open(path: string): Promise<ApprovalStore> } };

const dir = await Deno.makeTempDir({ prefix: "sluice-store-ab-" });
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
const stores = [
  await LibsqlApprovalStore.open(`${dir}/this.db`),
  await OtherStore.open(`${dir}/other.db`),
];
for (const store of stores) {
  const gate = gateOn(store);
  loops.push(async () => {
    for (let i = 0; i < CYCLES; i++) {
      const n = sequence++;
      const [envelope] = await gate.run([
        { id: `c${n}`, name: "save_record", arguments: { key: `k${n}`, value: SYNTHETIC_VALUE } },
      ], { runId: "store-ab" });
      if (envelope.effect !== "committed") throw new Error("a write did not commit");
    }
  });
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
const range = (ratios: number[]) =>
  `${median(ratios).toFixed(2)}x (${quantile(ratios, 0.25).toFixed(2)}..${
    quantile(ratios, 0.75).toFixed(2)
  })`;
const [bare, mine, theirs] = samples;
console.log(`bare durable transaction: ${(median(bare) * 1000 / (CYCLES * 4)).toFixed(0)} us`);
for (const [name, gate] of [["this checkout", mine], ["the other", theirs]] as const) {
  console.log(
    `${name.padEnd(13)} ${(median(gate) * 1000 / CYCLES).toFixed(0)} us per write, ` +
      `${range(gate.map((ms, round) => ms / bare[round]))} the bare loop`,
  );
}
console.log(`this / the other, per round: ${range(mine.map((ms, round) => ms / theirs[round]))}`);
for (const store of stores) await store.close();
bareDb.close();
await server.close();
await Deno.remove(dir, { recursive: true });
