/**
 * An A/B of two checkouts of sluice on the write path, in one process: gate write cycles (inline
 * approval, one in-memory v2 write server) through this checkout's gate and libSQL file store and
 * through another checkout's (for example a `git worktree` of an older commit), against a bare
 * loop of four one-row synced inserts per write, rounds rotated.
 *
 * ```
 * git worktree add /tmp/before <commit>
 * deno run -A scripts/experiments/write_ab.ts /tmp/before [rounds]
 * ```
 *
 * Not part of `deno task bench`.
 *
 * @module
 */
import Database from "libsql";
import { pathToFileURL } from "node:url";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { SYNTHETIC_VALUE } from "../../fixtures/write_server.ts";
import { startMemoryWriteServer } from "../../fixtures/write_server_memory.ts";
import { inlineGates } from "../bench/write_path.ts";
import { median, quantile } from "../bench/types.ts";

const [other, roundsArg] = Deno.args;
if (other === undefined) throw new Error("usage: write_ab.ts <other checkout> [rounds]");
const ROUNDS = Number(roundsArg ?? 60);
const CYCLES = 10;
const otherRoot = await Deno.realPath(other);
const fromOther = (path: string) => import(pathToFileURL(`${otherRoot}/${path}`).href);
const { LibsqlApprovalStore: OtherStore } = await fromOther("libsql.ts") as {
  LibsqlApprovalStore: typeof LibsqlApprovalStore;
};
const { inlineGates: otherGates } = await fromOther("scripts/bench/write_path.ts") as {
  inlineGates: typeof inlineGates;
};

const dir = await Deno.makeTempDir({ prefix: "sluice-write-ab-" });
const server = await startMemoryWriteServer();
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
const gates = [(await inlineGates(server))(stores[0]), (await otherGates(server))(stores[1])];
for (const gate of gates) {
  loops.push(async () => {
    for (let i = 0; i < CYCLES; i++) {
      const n = sequence++;
      const [envelope] = await gate.run([
        { id: `c${n}`, name: "save_record", arguments: { key: `k${n}`, value: SYNTHETIC_VALUE } },
      ], { runId: "write-ab" });
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
