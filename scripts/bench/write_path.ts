/**
 * Write-path benchmark: full write cycles through the `Gate` (prepare, inline approve, claim,
 * dispatch to an in-memory v2 SDK server, record the committed outcome) on a libSQL FILE store
 * with WAL and `synchronous=FULL`, next to a bare libSQL loop on a file with the same settings
 * that commits the same number of write transactions. Target: at most 1.3× the bare loop.
 *
 * The number of durable transactions per write is measured, not assumed: every state change of
 * the store is one write transaction that appends one event, so the events of one approval
 * count its transactions (checked again on the last timed cycle).
 *
 * Two more loops split the target's budget: the floor (the bare transactions plus one raw SDK
 * `callTool` per write to the same in-memory server: the parts the cycle must contain, with no
 * sluice code) and the store on a file whose state-machine triggers were dropped (what the SQL
 * enforcement costs, since `@libsql/client` compiles the triggers into every statement anew).
 * Gate cycles on the non-durable `MemoryApprovalStore` show what the gate costs with no SQL.
 *
 * The machine may be shared, and fsync latency on it swings by 10x within seconds, so rounds of
 * gate cycles, bare transactions and store-only cycles alternate, and each ratio is the median
 * of the per-round ratios (with its quartiles as figures) rather than a ratio of medians.
 *
 * @module
 */
import { createClient } from "@libsql/client";
import { digest, discoverWriteTools, Gate, MemoryApprovalStore } from "../../mod.ts";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { SYNTHETIC_VALUE } from "../../fixtures/write_server.ts";
import { startMemoryWriteServer } from "../../fixtures/write_server_memory.ts";
import { writeBinding } from "../../tests/support/write_bindings.ts";
import { type Benchmark, median, quantile, sampleInterleaved } from "./types.ts";

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
    // The same store and bare loops without a file: their CPU alone, no fsync.
    const memoryStore = await LibsqlApprovalStore.open(":memory:");
    const memoryBare = createClient({ url: ":memory:", intMode: "number", concurrency: 1 });
    // The same store with its triggers dropped by another connection: not a sluice store any
    // more, only a measurement of what the triggers cost.
    const untriggered = await LibsqlApprovalStore.open(`${dir}/untriggered.db`);
    await dropTriggers(`file:${dir}/untriggered.db`);
    try {
      const settings = await store.durability();
      if (settings.journalMode !== "wal" || settings.synchronous < 2) {
        throw new Error("the benchmark store is not WAL + synchronous=FULL");
      }
      const writes = await discoverWriteTools(server.client, "bench", {
        write_record: writeBinding(),
      }, { monitor: server.monitor });
      const gate = new Gate({ catalogs: [writes], store, approve: () => true });
      const sqlFreeGate = new Gate({
        catalogs: [writes],
        store: new MemoryApprovalStore(),
        approve: () => true,
        allowNonDurableStoreForTests: true,
      });

      // One cycle first, to count its durable transactions.
      const [probe] = await gate.run([
        { id: "probe", name: "save_record", arguments: { key: "probe", value: SYNTHETIC_VALUE } },
      ], { runId: "bench-probe" });
      if (probe.effect !== "committed") throw new Error("the probe write did not commit");
      const transactionsPerWrite = (await store.events(probe.approvalId!)).length;

      await bare.execute("PRAGMA journal_mode = WAL");
      await bare.execute("PRAGMA synchronous = FULL");
      const bareSync = Number((await bare.execute("PRAGMA synchronous")).rows[0][0]);
      const bareJournal = String((await bare.execute("PRAGMA journal_mode")).rows[0][0]);
      if (bareSync < 2 || bareJournal.toLowerCase() !== "wal") {
        throw new Error("the bare loop is not WAL + synchronous=FULL");
      }
      for (const client of [bare, memoryBare]) {
        await client.execute(
          "CREATE TABLE IF NOT EXISTS t (id TEXT PRIMARY KEY, state TEXT, body TEXT, at INTEGER)",
        );
      }

      let sequence = 0;
      let lastApprovalId = "";
      const body = JSON.stringify({ key: "k", value: SYNTHETIC_VALUE }).repeat(4);
      const cyclesOn = (gate: Gate) => async () => {
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
          lastApprovalId = envelope.approvalId!;
        }
      };
      const cycles = cyclesOn(gate);
      const bareLoopOn = (client: typeof bare) => async () => {
        for (let i = 0; i < CYCLES_PER_ROUND * transactionsPerWrite; i++) {
          const n = sequence++;
          const tx = await client.transaction("write");
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
      const storeOnlyOn = (store: LibsqlApprovalStore) => async () => {
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
      const bareLoop = bareLoopOn(bare);
      // The parts a write cycle cannot leave out, without sluice: the same durable transactions
      // and one tools/call through the SDK client.
      const floor = async () => {
        await bareLoop();
        for (let i = 0; i < CYCLES_PER_ROUND; i++) {
          const result = await server.client.callTool({
            name: "write_record",
            arguments: { key: `f${sequence++}`, value: SYNTHETIC_VALUE },
          });
          if (result.isError) throw new Error("a floor call failed");
        }
      };
      const [
        gateSamples,
        bareSamples,
        storeSamples,
        storeCpuSamples,
        bareCpuSamples,
        floorSamples,
        untriggeredSamples,
        sqlFreeSamples,
      ] = await sampleInterleaved(
        [
          cycles,
          bareLoop,
          storeOnlyOn(store),
          storeOnlyOn(memoryStore),
          bareLoopOn(memoryBare),
          floor,
          storeOnlyOn(untriggered),
          cyclesOn(sqlFreeGate),
        ],
        { rounds: ROUNDS, warmup: WARMUP },
      );
      // The last cycle ran on the SQL-free gate; one more on the libSQL store to check it.
      await cycles();
      if ((await store.events(lastApprovalId)).length !== transactionsPerWrite) {
        throw new Error("a timed cycle made another number of transactions than the probe");
      }
      const [subjectMs, baselineMs, storeMs] = [gateSamples, bareSamples, storeSamples].map(
        median,
      );
      const perRound = (subject: number[], baseline: number[]) =>
        subject.map((ms, round) => ms / baseline[round]);
      const gateRatios = perRound(gateSamples, bareSamples);
      const storeRatios = perRound(storeSamples, bareSamples);
      const perTransactionUs = (ms: number) =>
        (ms * 1000) / (CYCLES_PER_ROUND * transactionsPerWrite);
      const perSecond = (CYCLES_PER_ROUND * 1000) / subjectMs;
      const perWriteUs = (ms: number) => (ms * 1000) / CYCLES_PER_ROUND;
      const floorMs = median(floorSamples);
      const untriggeredMs = median(untriggeredSamples);
      const bareTx = (CYCLES_PER_ROUND * transactionsPerWrite * 1000) / baselineMs;
      return [{
        kind: "comparison",
        subject: `${CYCLES_PER_ROUND} write cycles (${transactionsPerWrite} tx each)`,
        subjectMs,
        baseline: `${CYCLES_PER_ROUND * transactionsPerWrite} bare libSQL transactions`,
        baselineMs,
        ratio: median(gateRatios),
        targetRatio: 1.3,
      }, {
        kind: "comparison",
        subject: `${CYCLES_PER_ROUND} store-only cycles (no gate, no MCP)`,
        subjectMs: storeMs,
        baseline: `${CYCLES_PER_ROUND * transactionsPerWrite} bare libSQL transactions`,
        baselineMs,
        ratio: median(storeRatios),
      }, {
        kind: "comparison",
        subject: `${CYCLES_PER_ROUND} write cycles (gate)`,
        subjectMs,
        baseline: `${CYCLES_PER_ROUND} store-only cycles`,
        baselineMs: storeMs,
        ratio: median(perRound(gateSamples, storeSamples)),
      }, {
        kind: "comparison",
        subject: `${CYCLES_PER_ROUND} store-only cycles on :memory: (CPU, no fsync)`,
        subjectMs: median(storeCpuSamples),
        baseline: `${CYCLES_PER_ROUND * transactionsPerWrite} bare transactions on :memory:`,
        baselineMs: median(bareCpuSamples),
        ratio: median(perRound(storeCpuSamples, bareCpuSamples)),
      }, {
        kind: "comparison",
        subject: `floor: the same tx + ${CYCLES_PER_ROUND} raw SDK callTool, no sluice`,
        subjectMs: floorMs,
        baseline: `${CYCLES_PER_ROUND * transactionsPerWrite} bare libSQL transactions`,
        baselineMs,
        ratio: median(perRound(floorSamples, bareSamples)),
      }, {
        kind: "comparison",
        subject: `${CYCLES_PER_ROUND} store-only cycles, triggers dropped`,
        subjectMs: untriggeredMs,
        baseline: `${CYCLES_PER_ROUND * transactionsPerWrite} bare libSQL transactions`,
        baselineMs,
        ratio: median(perRound(untriggeredSamples, bareSamples)),
      }, {
        kind: "figure",
        name: "sluice's budget per write at 1.3x (1.3 x bare - floor)",
        value: perWriteUs(1.3 * baselineMs - floorMs),
        unit: "us",
      }, {
        kind: "figure",
        name: "sluice's cost per write (gate cycle - floor)",
        value: perWriteUs(subjectMs - floorMs),
        unit: "us",
      }, {
        kind: "figure",
        name: "gate with no SQL (MemoryApprovalStore) - raw callTool, per write",
        value: perWriteUs(median(sqlFreeSamples)) - perWriteUs(floorMs - baselineMs),
        unit: "us",
      }, {
        kind: "figure",
        name: "SQL state-machine triggers per write (store - store without)",
        value: perWriteUs(storeMs - untriggeredMs),
        unit: "us",
      }, {
        kind: "figure",
        name: "store CPU per durable transaction (:memory:)",
        value: perTransactionUs(median(storeCpuSamples)),
        unit: "us",
      }, {
        kind: "figure",
        name: "bare CPU per transaction (:memory:)",
        value: perTransactionUs(median(bareCpuSamples)),
        unit: "us",
      }, {
        kind: "figure",
        name: "bare time per durable transaction (file, mostly fsync)",
        value: perTransactionUs(baselineMs),
        unit: "us",
      }, {
        kind: "figure",
        name: "gate cycles / bare, per-round ratio, 25th percentile",
        value: quantile(gateRatios, 0.25),
        unit: "x",
      }, {
        kind: "figure",
        name: "gate cycles / bare, per-round ratio, 75th percentile",
        value: quantile(gateRatios, 0.75),
        unit: "x",
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
      memoryBare.close();
      await untriggered.close();
      await store.close();
      await memoryStore.close();
      await server.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
};

/** Drops every trigger of the database at `url`, through a connection of its own. */
async function dropTriggers(url: string): Promise<void> {
  const client = createClient({ url, intMode: "number" });
  try {
    const triggers = await client.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'");
    if (triggers.rows.length === 0) throw new Error("the store schema has no triggers to drop");
    for (const row of triggers.rows) await client.execute(`DROP TRIGGER "${String(row[0])}"`);
  } finally {
    client.close();
  }
}
