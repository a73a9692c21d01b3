/**
 * A loop of gate write cycles on an embedded libSQL file store (inline approval, the in-memory v2
 * write server), to be profiled:
 *
 * ```
 * deno run -A --cpu-prof --cpu-prof-dir=<dir> scripts/experiments/write_profile.ts [cycles]
 * deno run -A scripts/experiments/profile_summary.ts <dir>/<file>.cpuprofile
 * ```
 *
 * Not part of `deno task bench`.
 *
 * @module
 */
import { LibsqlApprovalStore } from "../../libsql.ts";
import { SYNTHETIC_VALUE } from "../../fixtures/write_server.ts";
import { startMemoryWriteServer } from "../../fixtures/write_server_memory.ts";
import { inlineGates } from "../bench/write_path.ts";

const CYCLES = Number(Deno.args[0] ?? 2000);
const dir = await Deno.makeTempDir({ prefix: "sluice-write-profile-" });
const store = await LibsqlApprovalStore.open(`${dir}/approvals.db`);
const server = await startMemoryWriteServer();
const gate = (await inlineGates(server))(store);
const start = performance.now();
for (let n = 0; n < CYCLES; n++) {
  const [envelope] = await gate.run([
    { id: `c${n}`, name: "save_record", arguments: { key: `k${n}`, value: SYNTHETIC_VALUE } },
  ], { runId: "profile" });
  if (envelope.effect !== "committed") throw new Error("a write did not commit");
}
console.log(`${((performance.now() - start) * 1000 / CYCLES).toFixed(0)} us per write cycle`);
await server.close();
await store.close();
await Deno.remove(dir, { recursive: true });
