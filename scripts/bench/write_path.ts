/**
 * Write-path benchmark: full write cycles through the `Gate` (prepare, inline approve, claim,
 * dispatch to an in-memory v2 SDK server, record the committed outcome) on a libSQL FILE store
 * with WAL and `synchronous=FULL`, next to a bare libSQL loop on a file with the same settings
 * that commits the same number of write transactions. Target: at most 1.3× the bare loop.
 *
 * The number of durable transactions per write is measured, not assumed: every state change of
 * the store is one write transaction that appends one event, so the events of one approval
 * count its transactions.
 *
 * @module
 */
import { createClient } from "@libsql/client";
import { digest, discoverWriteTools, Gate } from "../../mod.ts";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { SYNTHETIC_VALUE } from "../../fixtures/write_server.ts";
import { startMemoryWriteServer } from "../../fixtures/write_server_memory.ts";
import { writeBinding } from "../../tests/support/write_bindings.ts";
import { type Benchmark, timeInterleaved } from "./types.ts";

/** Write cycles per timed round. */
const CYCLES_PER_ROUND = 10;
const ROUNDS = 50;
const WARMUP = 10;

/** The write-path benchmark registered in `scripts/bench.ts`. */
export const writePathBenchmark: Benchmark = {
  name: "write_path",
  describe: () =>
    `${CYCLES_PER_ROUND} gate write cycles per round on a libSQL file (WAL, synchronous=FULL) ` +
    `vs a bare libSQL loop committing the same number of transactions`,
  async run() {
    const dir = await Deno.makeTempDir({ prefix: "sluice-bench-write-" });
    const server = await startMemoryWriteServer();
    const store = await LibsqlApprovalStore.open(`${dir}/approvals.db`);
    const bare = createClient({ url: `file:${dir}/bare.db`, intMode: "number", concurrency: 1 });
    try {
      const settings = await store.durability();
      if (settings.journalMode !== "wal" || settings.synchronous < 2) {
        throw new Error("the benchmark store is not WAL + synchronous=FULL");
      }
      const writes = await discoverWriteTools(server.client, "bench", {
        write_record: writeBinding(),
      }, { monitor: server.monitor });
      const gate = new Gate({ catalogs: [writes], store, approve: () => true });

      // One cycle first, to count its durable transactions.
      const [probe] = await gate.run([
        { id: "probe", name: "save_record", arguments: { key: "probe", value: SYNTHETIC_VALUE } },
      ], { runId: "bench-probe" });
      if (probe.effect !== "committed") throw new Error("the probe write did not commit");
      const transactionsPerWrite = (await store.events(probe.approvalId!)).length;

      await bare.execute("PRAGMA journal_mode = WAL");
      await bare.execute("PRAGMA synchronous = FULL");
      const bareSync = Number((await bare.execute("PRAGMA synchronous")).rows[0][0]);
      if (bareSync < 2) throw new Error("the bare loop is not synchronous=FULL");
      await bare.execute(
        "CREATE TABLE IF NOT EXISTS t (id TEXT PRIMARY KEY, state TEXT, body TEXT, at INTEGER)",
      );

      let sequence = 0;
      const body = JSON.stringify({ key: "k", value: SYNTHETIC_VALUE }).repeat(4);
      const cycles = async () => {
        for (let i = 0; i < CYCLES_PER_ROUND; i++) {
          const n = sequence++;
          const [envelope] = await gate.run([
            {
              id: `c${n}`,
              name: "save_record",
              arguments: { key: `k${n}`, value: SYNTHETIC_VALUE },
            },
          ], { runId: "bench" });
          if (envelope.effect !== "committed") throw new Error("a write did not commit");
        }
      };
      const bareLoop = async () => {
        for (let i = 0; i < CYCLES_PER_ROUND * transactionsPerWrite; i++) {
          const n = sequence++;
          const tx = await bare.transaction("write");
          try {
            await tx.execute({
              sql: "INSERT INTO t (id, state, body, at) VALUES (?, ?, ?, ?)",
              args: [`b${n}`, "pending", body, Date.now()],
            });
            await tx.commit();
          } finally {
            tx.close();
          }
        }
      };
      // The same four store calls without the gate, MCP or digests of results: splits the
      // gate's own cost from the store's.
      const binding = writes.registrations[0].approvalBinding;
      const identity = {
        serverId: "bench",
        toolName: "save_record",
        remoteToolName: "write_record",
        catalogDigest: binding.bindingRevision,
        bindingId: binding.bindingId,
        scopeId: binding.scopeId,
        scopeRevision: binding.scopeRevision,
        effect: binding.effect,
      };
      const storeOnly = async () => {
        for (let i = 0; i < CYCLES_PER_ROUND; i++) {
          const n = sequence++;
          const args = { key: `s${n}`, value: SYNTHETIC_VALUE };
          const argumentsDigest = await digest(args);
          const { id } = await store.prepare({
            ...identity,
            arguments: args,
            argumentsDigest,
            expiresAt: Date.now() + 60_000,
            runId: "bench-store",
            callId: `s${n}`,
          });
          await store.approve(id, { by: "bench" });
          const claim = await store.claim(id, { ...identity, argumentsDigest });
          if (!claim.ok) throw new Error("a store-only claim failed");
          await store.recordOutcome(id, {
            outcome: "committed",
            receipt: { resultDigest: argumentsDigest, at: Date.now() },
          });
        }
      };
      const [subjectMs, baselineMs, storeMs] = await timeInterleaved(
        [cycles, bareLoop, storeOnly],
        { rounds: ROUNDS, warmup: WARMUP },
      );
      const perSecond = (CYCLES_PER_ROUND * 1000) / subjectMs;
      const bareTx = (CYCLES_PER_ROUND * transactionsPerWrite * 1000) / baselineMs;
      return [{
        kind: "comparison",
        subject: `${CYCLES_PER_ROUND} write cycles (${transactionsPerWrite} tx each)`,
        subjectMs,
        baseline: `${CYCLES_PER_ROUND * transactionsPerWrite} bare libSQL transactions`,
        baselineMs,
        targetRatio: 1.3,
      }, {
        kind: "comparison",
        subject: `${CYCLES_PER_ROUND} store-only cycles (no gate, no MCP)`,
        subjectMs: storeMs,
        baseline: `${CYCLES_PER_ROUND * transactionsPerWrite} bare libSQL transactions`,
        baselineMs,
      }, {
        kind: "comparison",
        subject: `${CYCLES_PER_ROUND} write cycles (gate)`,
        subjectMs,
        baseline: `${CYCLES_PER_ROUND} store-only cycles`,
        baselineMs: storeMs,
      }, {
        kind: "figure",
        name: "full write cycles (gate, libSQL file, synchronous=FULL)",
        value: perSecond,
        unit: "cycles/s",
      }, {
        kind: "figure",
        name: "durable transactions per write",
        value: transactionsPerWrite,
        unit: "tx",
      }, {
        kind: "figure",
        name: "bare libSQL write transactions (same settings)",
        value: bareTx,
        unit: "tx/s",
      }];
    } finally {
      bare.close();
      await store.close();
      await server.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
};
