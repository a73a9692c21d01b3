/**
 * What `sync: "with_next"` buys per store: the four store calls of an inline write (prepare,
 * approve, claim, outcome) with every commit synced, against prepare and approve riding on the
 * claim's synced commit (what the gate does), on two stores of the same kind, rounds of 10
 * cycles interleaved in alternating order; medians of wall time per cycle. libSQL file always,
 * PostgreSQL when its binaries exist (a real server started for the run).
 *
 * ```
 * deno run -A scripts/experiments/commit_sync.ts [rounds]
 * ```
 *
 * Not part of `deno task bench`.
 *
 * @module
 */
import type { ApprovalStore } from "../../mod.ts";
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

async function compare(name: string, synced: ApprovalStore, later: ApprovalStore) {
  const wall: [number[], number[]] = [[], []];
  for (let round = -3; round < ROUNDS; round++) {
    for (const which of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const start = performance.now();
      for (let i = 0; i < CYCLES; i++) await cycle(which === 0 ? synced : later, which === 1);
      if (round >= 0) wall[which].push((performance.now() - start) * 1000 / CYCLES);
    }
  }
  const [a, b] = wall.map(median);
  console.log(
    `${name}: every commit synced ${a.toFixed(0)} us, prepare+approve with_next ${
      b.toFixed(0)
    } us per cycle (${(b - a).toFixed(0)} us)`,
  );
}

const dir = await Deno.makeTempDir({ prefix: "sluice-commit-sync-" });
const files = [
  await LibsqlApprovalStore.open(`${dir}/synced.db`),
  await LibsqlApprovalStore.open(`${dir}/later.db`),
];
await compare("libSQL file", files[0], files[1]);
for (const store of files) await store.close();
await Deno.remove(dir, { recursive: true });
if (postgresBinDir() !== undefined) {
  const server = await startPostgres();
  try {
    const stores = [
      await PostgresApprovalStore.open(await server.createDatabase()),
      await PostgresApprovalStore.open(await server.createDatabase()),
    ];
    await compare("PostgreSQL", stores[0], stores[1]);
    for (const store of stores) await store.close();
  } finally {
    await server.stop();
  }
}
