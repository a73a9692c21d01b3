/**
 * What `sync: "with_next"` buys per store, two ways, each on two stores of the same kind with
 * rounds of 10 cycles interleaved in alternating order (medians of wall time per cycle):
 *
 * - the four store calls of an inline write (prepare, approve, claim, outcome) with every commit
 *   synced, against prepare and approve riding on the claim's synced commit;
 * - full inline gate write cycles (the bench's), on a store as the gate uses it against the same
 *   store with the option dropped (every commit synced).
 *
 * libSQL file always, PostgreSQL when its binaries exist (a real server started for the run).
 *
 * ```
 * deno run -A scripts/experiments/commit_sync.ts [rounds]
 * ```
 *
 * Not part of `deno task bench`.
 *
 * @module
 */
import type { ApprovalStore, Gate } from "../../mod.ts";
import { SYNTHETIC_VALUE } from "../../fixtures/write_server.ts";
import { startMemoryWriteServer } from "../../fixtures/write_server_memory.ts";
import { inlineGates } from "../bench/write_path.ts";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { PostgresApprovalStore } from "../../postgres.ts";
import { expectationFor, makeRequest } from "../../tests/support/approval_requests.ts";
import { postgresBinDir, startPostgres } from "../../tests/support/postgres_server.ts";
import { median } from "../bench/types.ts";

const ROUNDS = Number(Deno.args[0] ?? 30);
const CYCLES = 10;
const LATER = { sync: "with_next" } as const;
let sequence = 0;

async function cycle(store: ApprovalStore, later: boolean): Promise<void> {
  const options = later ? LATER : undefined;
  const request = await makeRequest(Date.now(), { runId: "sync", callId: `c${sequence++}` });
  const { id } = await store.prepare(request, options);
  await store.approve(id, { by: "sync" }, options);
  if (!(await store.claim(id, expectationFor(request))).ok) throw new Error("claim refused");
  await store.recordOutcome(id, {
    outcome: "committed",
    receipt: { resultDigest: "sha256:" + "b".repeat(64), at: Date.now() },
  });
}

/** `store` with the option dropped: every commit of prepare and approve synced. */
function everyCommitSynced(store: ApprovalStore): ApprovalStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === "prepare") {
        return (request: Parameters<ApprovalStore["prepare"]>[0]) => target.prepare(request);
      }
      if (property === "approve") {
        return (id: string, input: Parameters<ApprovalStore["approve"]>[1]) =>
          target.approve(id, input);
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Medians per cycle of two loops, rounds interleaved in alternating order. */
async function interleaved(loops: [() => Promise<void>, () => Promise<void>]) {
  const wall: [number[], number[]] = [[], []];
  for (let round = -3; round < ROUNDS; round++) {
    for (const which of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const start = performance.now();
      for (let i = 0; i < CYCLES; i++) await loops[which]();
      if (round >= 0) wall[which].push((performance.now() - start) * 1000 / CYCLES);
    }
  }
  return wall.map(median);
}

const server = await startMemoryWriteServer();
const gateOn = await inlineGates(server);

async function compare(name: string, [one, two, three, four]: ApprovalStore[]) {
  const [a, b] = await interleaved([() => cycle(one, false), () => cycle(two, true)]);
  console.log(
    `${name}, store calls: every commit synced ${a.toFixed(0)} us, prepare+approve with_next ${
      b.toFixed(0)
    } us per cycle (${(b - a).toFixed(0)} us)`,
  );
  const gateCycle = (gate: Gate) => async () => {
    const n = sequence++;
    const [envelope] = await gate.run([
      { id: `g${n}`, name: "save_record", arguments: { key: `k${n}`, value: SYNTHETIC_VALUE } },
    ], { runId: "sync" });
    if (envelope.effect !== "committed") throw new Error("a write did not commit");
  };
  const [c, d] = await interleaved([
    gateCycle(gateOn(everyCommitSynced(three))),
    gateCycle(gateOn(four)),
  ]);
  console.log(
    `${name}, gate cycles: every commit synced ${c.toFixed(0)} us, as the gate commits ${
      d.toFixed(0)
    } us per write (${(d - c).toFixed(0)} us)`,
  );
}

const dir = await Deno.makeTempDir({ prefix: "sluice-commit-sync-" });
const files = await Promise.all(
  [1, 2, 3, 4].map((n) => LibsqlApprovalStore.open(`${dir}/approvals-${n}.db`)),
);
await compare("libSQL file", files);
for (const store of files) await store.close();
await Deno.remove(dir, { recursive: true });
if (postgresBinDir() !== undefined) {
  const pg = await startPostgres();
  try {
    const stores: ApprovalStore[] = [];
    for (let n = 0; n < 4; n++) {
      stores.push(await PostgresApprovalStore.open(await pg.createDatabase()));
    }
    await compare("PostgreSQL", stores);
    for (const store of stores) await store.close();
  } finally {
    await pg.stop();
  }
}
await server.close();
