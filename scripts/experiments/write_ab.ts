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
import { pathToFileURL } from "node:url";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { startMemoryWriteServer } from "../../fixtures/write_server_memory.ts";
import { inlineGates } from "../bench/write_path.ts";
import { median } from "../bench/types.ts";
import { bareLoop, CYCLES, gateCycles, ratioRange, rotatedRounds } from "./gate_rounds.ts";

const [other, roundsArg] = Deno.args;
if (other === undefined) throw new Error("usage: write_ab.ts <other checkout> [rounds]");
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
const bare = bareLoop(dir);
const stores = [
  await LibsqlApprovalStore.open(`${dir}/this.db`),
  await OtherStore.open(`${dir}/other.db`),
];
const gates = [(await inlineGates(server))(stores[0]), (await otherGates(server))(stores[1])];
const [bareMs, mine, theirs] = await rotatedRounds([
  bare.loop,
  ...gates.map((gate) => gateCycles(gate, "write-ab")),
], Number(roundsArg ?? 60));
console.log(`bare durable transaction: ${(median(bareMs) * 1000 / (CYCLES * 4)).toFixed(0)} us`);
for (const [name, gate] of [["this checkout", mine], ["the other", theirs]] as const) {
  console.log(
    `${name.padEnd(13)} ${(median(gate) * 1000 / CYCLES).toFixed(0)} us per write, ` +
      `${ratioRange(gate, bareMs)} the bare loop`,
  );
}
console.log(`this / the other, per round: ${ratioRange(mine, theirs)}`);
for (const store of stores) await store.close();
bare.close();
await server.close();
await Deno.remove(dir, { recursive: true });
