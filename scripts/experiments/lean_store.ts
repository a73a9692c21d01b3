/**
 * Experiment, not part of sluice: how close to a bare libSQL loop can an approval store with the
 * state machine enforced in SQL get on `@libsql/client`? A deliberately lean design: the bound
 * identity written once into a table no statement may update, and every transition one
 * `INSERT` into an append-only event table whose keys and checks are the state machine
 * (each state entered once, left once, only along an allowed pair, only if it was entered).
 * Four durable transactions per write, as in the real store, timed against a bare loop of
 * one-row `INSERT` transactions through the same client API, rounds interleaved.
 *
 * `deno run -A scripts/experiments/lean_store.ts`
 *
 * @module
 */
import { createClient } from "@libsql/client";
import { median, quantile, sampleInterleaved } from "../bench/types.ts";

const CYCLES = 10;
const ALLOWED = [
  ">pending",
  "pending>approved",
  "pending>denied",
  "pending>expired",
  "approved>claimed",
  "approved>expired",
  "claimed>committed",
  "claimed>not_started",
  "claimed>unknown",
  "unknown>reconciled",
];
const SCHEMA = [
  `CREATE TABLE approvals (id TEXT PRIMARY KEY NOT NULL, server_id TEXT NOT NULL,
    tool_name TEXT NOT NULL, remote_tool_name TEXT NOT NULL, catalog_digest TEXT NOT NULL,
    binding_id TEXT NOT NULL, scope_id TEXT NOT NULL, scope_revision TEXT NOT NULL,
    effect TEXT NOT NULL CHECK (effect IN ('write', 'destructive')),
    arguments_digest TEXT NOT NULL, arguments_json TEXT NOT NULL, expires_at INTEGER NOT NULL,
    run_id TEXT, call_id TEXT, created_at INTEGER NOT NULL) STRICT, WITHOUT ROWID`,
  `CREATE UNIQUE INDEX approvals_run_call ON approvals (run_id, call_id) WHERE run_id IS NOT NULL`,
  `CREATE TRIGGER approvals_immutable BEFORE UPDATE ON approvals
    BEGIN SELECT RAISE(ABORT, 'immutable'); END`,
  `CREATE TRIGGER approvals_kept BEFORE DELETE ON approvals
    BEGIN SELECT RAISE(ABORT, 'kept'); END`,
  `CREATE TABLE approval_events (approval_id TEXT NOT NULL, from_state TEXT NOT NULL,
    to_state TEXT NOT NULL, at INTEGER NOT NULL, by TEXT, detail TEXT,
    PRIMARY KEY (approval_id, from_state), UNIQUE (approval_id, to_state),
    CHECK (from_state || '>' || to_state IN (${ALLOWED.map((p) => `'${p}'`).join(", ")}))
  ) STRICT, WITHOUT ROWID`,
  `CREATE TRIGGER approval_events_chain BEFORE INSERT ON approval_events
    WHEN NOT EXISTS (SELECT 1 FROM approval_events
      WHERE approval_id = NEW.approval_id AND to_state = NEW.from_state)
      AND (NEW.from_state <> '' OR NOT EXISTS (SELECT 1 FROM approvals WHERE id = NEW.approval_id))
    BEGIN SELECT RAISE(ABORT, 'an approval leaves only the state it is in'); END`,
  `CREATE TRIGGER approval_events_append_only BEFORE UPDATE ON approval_events
    BEGIN SELECT RAISE(ABORT, 'append-only'); END`,
  `CREATE TRIGGER approval_events_kept BEFORE DELETE ON approval_events
    BEGIN SELECT RAISE(ABORT, 'append-only'); END`,
];
const INSERT_APPROVAL = `INSERT INTO approvals VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT DO NOTHING`;
const INSERT_EVENT =
  `INSERT INTO approval_events (approval_id, from_state, to_state, at, by, detail)
  VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`;

const dir = await Deno.makeTempDir({ prefix: "sluice-lean-" });
const open = async (name: string) => {
  const client = createClient({ url: `file:${dir}/${name}`, intMode: "number", concurrency: 1 });
  await client.execute("PRAGMA journal_mode = WAL");
  await client.execute("PRAGMA synchronous = FULL");
  return client;
};
const lean = await open("lean.db");
const bare = await open("bare.db");
for (const statement of SCHEMA) await lean.execute(statement);
await bare.execute("CREATE TABLE t (id TEXT PRIMARY KEY, state TEXT, body TEXT, at INTEGER)");

// The state machine holds in SQL: a claim before approval, a second claim, a backward move and
// an edit are all refused by the database itself.
{
  const tx = await lean.transaction("write");
  await tx.execute({ sql: INSERT_APPROVAL, args: row("check", -1) });
  await tx.execute({ sql: INSERT_EVENT, args: ["check", "", "pending", 0, null, null] });
  await tx.commit();
  const refused = async (sql: string, args: (string | number | null)[]) => {
    try {
      await lean.execute({ sql, args });
    } catch {
      return;
    }
    throw new Error(`the lean schema accepted ${sql} ${JSON.stringify(args)}`);
  };
  await refused(INSERT_EVENT.replace(" ON CONFLICT DO NOTHING", ""), [
    "check",
    "approved",
    "claimed",
    1,
    null,
    null,
  ]);
  await lean.execute({ sql: INSERT_EVENT, args: ["check", "pending", "approved", 1, "a", null] });
  await lean.execute({ sql: INSERT_EVENT, args: ["check", "approved", "claimed", 2, null, null] });
  const second = await lean.execute({
    sql: INSERT_EVENT,
    args: ["check", "approved", "claimed", 3, null, null],
  });
  if (second.rowsAffected !== 0) throw new Error("a second claim was inserted");
  await refused(INSERT_EVENT, ["check", "claimed", "approved", 4, null, null]);
  await refused("UPDATE approvals SET arguments_json = '{}' WHERE id = ?", ["check"]);
  await refused("UPDATE approval_events SET by = 'b' WHERE approval_id = ?", ["check"]);
}

function row(id: string, n: number): (string | number | null)[] {
  return [
    id,
    "bench",
    "save_record",
    "write_record",
    "sha256:" + "a".repeat(64),
    "binding",
    "scope",
    "1",
    "write",
    "sha256:" + "b".repeat(64),
    JSON.stringify({ key: `k${n}`, value: "v" }),
    Date.now() + 60_000,
    "run",
    `call-${n}`,
    Date.now(),
  ];
}

let sequence = 0;
const write = async (statements: { sql: string; args: (string | number | null)[] }[]) => {
  const tx = await lean.transaction("write");
  try {
    for (const statement of statements) {
      const result = await tx.execute(statement);
      if (result.rowsAffected !== 1) throw new Error("a transition did not apply");
    }
    await tx.commit();
  } finally {
    tx.close();
  }
};
const leanCycles = async () => {
  for (let i = 0; i < CYCLES; i++) {
    const n = sequence++;
    const id = crypto.randomUUID();
    const at = Date.now();
    await write([
      { sql: INSERT_APPROVAL, args: row(id, n) },
      { sql: INSERT_EVENT, args: [id, "", "pending", at, null, null] },
    ]);
    await write([{ sql: INSERT_EVENT, args: [id, "pending", "approved", at, "bench", null] }]);
    await write([{ sql: INSERT_EVENT, args: [id, "approved", "claimed", at, null, null] }]);
    await write([{
      sql: INSERT_EVENT,
      args: [id, "claimed", "committed", at, null, "sha256:" + "c".repeat(64)],
    }]);
  }
};
const body = JSON.stringify({ key: "k", value: "v".repeat(64) }).repeat(4);
const bareLoop = async () => {
  for (let i = 0; i < CYCLES * 4; i++) {
    const tx = await bare.transaction("write");
    try {
      await tx.execute({
        sql: "INSERT INTO t (id, state, body, at) VALUES (?, ?, ?, ?)",
        args: [`b${sequence++}`, "pending", body, Date.now()],
      });
      await tx.commit();
    } finally {
      tx.close();
    }
  }
};
const [leanSamples, bareSamples] = await sampleInterleaved([leanCycles, bareLoop], {
  rounds: 50,
  warmup: 10,
});
const ratios = leanSamples.map((ms, round) => ms / bareSamples[round]);
console.log(
  `lean store: ${CYCLES} cycles (4 tx) ${median(leanSamples).toFixed(2)} ms, ` +
    `bare ${CYCLES * 4} tx ${median(bareSamples).toFixed(2)} ms, ratio ${
      median(ratios).toFixed(2)
    }x (quartiles ${quantile(ratios, 0.25).toFixed(2)}-${quantile(ratios, 0.75).toFixed(2)}), ` +
    `extra per write ${
      ((median(leanSamples) - median(bareSamples)) * 1000 / CYCLES).toFixed(0)
    } us`,
);
lean.close();
bare.close();
await Deno.remove(dir, { recursive: true });
