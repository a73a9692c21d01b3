/**
 * What a blocking fsync inside a write cycle costs beyond itself: gate write cycles on the memory
 * store (no SQL), the same with a real 8 KiB write and fsync of a scratch file inside
 * `prepareClaimed` and `recordOutcome` (where the embedded file store waits for the disk), and the
 * two fsyncs alone, rounds interleaved. The median of per-round "with - without - fsyncs alone" is
 * the cost of running the cycle's JavaScript after each wait for the disk.
 *
 * `deno run -A scripts/experiments/fsync_wake.ts [rounds]` (try it under `taskset -c 0` too).
 * Not part of `deno task bench`.
 *
 * @module
 */
import { MemoryApprovalStore } from "../../mod.ts";
import { SYNTHETIC_VALUE } from "../../fixtures/write_server.ts";
import { startMemoryWriteServer } from "../../fixtures/write_server_memory.ts";
import { inlineGates } from "../bench/write_path.ts";
import { median } from "../bench/types.ts";

const ROUNDS = Number(Deno.args[0] ?? 40);
const WRITES = 10;
const dir = await Deno.makeTempDir({ prefix: "sluice-fsync-wake-" });
const scratch = Deno.openSync(`${dir}/sync.bin`, { write: true, create: true, read: true });
const page = new Uint8Array(8192).fill(7);
const syncOnce = () => {
  scratch.writeSync(page);
  scratch.syncSync();
  scratch.seekSync(0, Deno.SeekMode.Start);
};

/** The memory store, waiting for a real disk where the embedded file store does. */
class SyncingStore extends MemoryApprovalStore {
  override async prepareClaimed(...args: Parameters<MemoryApprovalStore["prepareClaimed"]>) {
    const result = await super.prepareClaimed(...args);
    syncOnce();
    return result;
  }
  override async recordOutcome(...args: Parameters<MemoryApprovalStore["recordOutcome"]>) {
    const result = await super.recordOutcome(...args);
    syncOnce();
    return result;
  }
}

const server = await startMemoryWriteServer();
const gateOn = await inlineGates(server);
let n = 0;
const cycles = (gate: ReturnType<typeof gateOn>) => async () => {
  for (let i = 0; i < WRITES; i++) {
    const [envelope] = await gate.run([
      { id: `c${n}`, name: "save_record", arguments: { key: `k${n++}`, value: SYNTHETIC_VALUE } },
    ], { runId: "wake" });
    if (envelope.effect !== "committed") throw new Error("a write did not commit");
  }
};
const loops: [string, () => Promise<void>][] = [
  ["gate (memory store)", cycles(gateOn(new MemoryApprovalStore()))],
  ["gate (memory store) + 2 fsyncs", cycles(gateOn(new SyncingStore()))],
  ["2 fsyncs alone", () => {
    for (let i = 0; i < 2 * WRITES; i++) syncOnce();
    return Promise.resolve();
  }],
];
const times = loops.map((): number[] => []);
for (let round = -3; round < ROUNDS; round++) {
  for (let step = 0; step < loops.length; step++) {
    const index = (round + 3 + step) % loops.length;
    const start = performance.now();
    await loops[index][1]();
    if (round >= 0) times[index].push((performance.now() - start) * 1000 / WRITES);
  }
}
console.log(`per write, median of ${ROUNDS} rounds of ${WRITES}`);
for (const [index, [name]] of loops.entries()) {
  console.log(`  ${name.padEnd(34)} ${median(times[index]).toFixed(0).padStart(6)} us`);
}
const extra = times[1].map((value, round) => value - times[0][round] - times[2][round]);
console.log(`  beyond the sum (per-round median)   ${median(extra).toFixed(0).padStart(6)} us`);
scratch.close();
await server.close();
await Deno.remove(dir, { recursive: true });
