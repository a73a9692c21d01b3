/**
 * Where SQLite spends a store cycle's statement time: the recorded statements of one inline
 * cycle replayed on `:memory:` with the full schema and with groups of triggers dropped.
 * `deno run -A scripts/experiments/sql_variants.ts`
 *
 * @module
 */
import Database from "libsql";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { SQLITE_MIGRATIONS } from "../../src/approvals/sqlite/migrations.ts";
import { expectationFor, makeRequest } from "../../tests/support/approval_requests.ts";
import { observeBatches } from "../bench/store_batches.ts";

const dir = await Deno.makeTempDir();
const store = await LibsqlApprovalStore.open(`${dir}/r.db`);
const { value: recordedId, batches } = await observeBatches(async () => {
  const request = await makeRequest(Date.now(), { runId: "v", callId: "c0" });
  const { id } = await store.prepare(request);
  await store.approve(id, { by: "x" });
  const claim = await store.claim(id, expectationFor(request));
  if (!claim.ok) throw new Error(claim.code);
  await store.recordOutcome(id, {
    outcome: "committed",
    receipt: { resultDigest: "sha256:" + "b".repeat(64), at: Date.now() },
  });
  return id;
});
const sent = batches.flat();
await store.close();
for (const s of sent) console.log(s.sql.replace(/\s+/g, " ").slice(0, 300), "\n");

type Variant = { name: string; drop: (trigger: string) => boolean; returning?: boolean };
const variants: Variant[] = [
  { name: "full schema", drop: () => false },
  { name: "no triggers", drop: () => true },
  { name: "no fact triggers", drop: (t) => t.startsWith("approvals_fact") },
  { name: "no transition trigger", drop: (t) => t === "approvals_transition" },
  { name: "full, RETURNING stripped", drop: () => false, returning: false },
];
const setups = variants.map((variant) => {
  const db = new Database(":memory:");
  for (const sql of SQLITE_MIGRATIONS.flatMap((m) => m.statements)) db.exec(sql);
  const triggers = db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").all() as {
    name: string;
  }[];
  for (const { name } of triggers) if (variant.drop(name)) db.exec(`DROP TRIGGER ${name}`);
  const replay = sent.map(({ sql, args }) => ({
    statement: db.prepare(variant.returning === false ? sql.replace(/RETURNING[\s\S]*$/, "") : sql),
    args,
  }));
  let n = 0;
  const cycle = () => {
    const id = crypto.randomUUID();
    const call = `r${n++}`;
    for (const { statement, args } of replay) {
      statement.run(args.map((a) => a === recordedId ? id : a === "c0" ? call : a));
    }
  };
  return { variant, cycle };
});
const times = setups.map(() => [] as number[]);
for (let round = 0; round < 30; round++) {
  for (const [i, { cycle }] of setups.entries()) {
    const start = performance.now();
    for (let k = 0; k < 200; k++) cycle();
    if (round >= 5) times[i].push((performance.now() - start) / 200 * 1000);
  }
}
const med = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1];
for (const [i, { variant }] of setups.entries()) {
  console.log(`${variant.name.padEnd(36)} ${med(times[i]).toFixed(1)} us per cycle`);
}
