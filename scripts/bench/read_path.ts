/**
 * Read-path benchmark, over in-memory v2 client/server pairs (the official SDK on both ends,
 * the read fixture server):
 *
 * 1. 2,000 sequential calls of an echo tool returning 1 KiB of text, through a sluice
 *    registration vs the same client's `callTool` (interleaved call by call; the median of 7
 *    rounds by ratio).
 *    Target: ratio at most 1.15.
 * 2. Discovery of 32, 128 and 256 tools with ~2 KiB input schemas, every tool bound. Time per
 *    tool at 128 and 256 vs at 32. Target: at most 1.5.
 *
 * `deno task bench read_path` runs it through the registry; `deno run -A
 * scripts/bench/read_path.ts` runs it alone and prints the rows.
 *
 * @module
 */
import { Client, type Transport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { CatalogMonitor, discoverTools, Gate, type ReadToolBinding } from "../../mod.ts";
import { startMemoryServerV2 } from "../../fixtures/read_server_v2.ts";
import type { Benchmark, ComparisonRow } from "./types.ts";

/** The rows this benchmark reports. */
export type ReadPathRow = ComparisonRow;

const CALLS = 2_000;
const ROUNDS = 7;
const PAYLOAD = "x".repeat(1024);
const DISCOVERY_SIZES = [32, 128, 256] as const;
const DISCOVERY_ROUNDS = 15;

function median(values: number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * A v2 client (with the cfworker validator) connected over `transport`, and a catalog monitor
 * on its negotiated version; `close` closes the monitor, the client, then the server.
 */
export async function benchClient(transport: Transport, closeServer: () => Promise<void>) {
  const client = new Client({ name: "sluice-bench", version: "0.0.0" }, {
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });
  await client.connect(transport);
  const monitor = new CatalogMonitor();
  monitor.acceptProtocolVersion(client.getNegotiatedProtocolVersion());
  return {
    client,
    monitor,
    close: async () => {
      monitor.close();
      await client.close();
      await closeServer();
    },
  };
}

async function connect(options: { extraTools?: number; onlyExtraTools?: boolean }) {
  const server = await startMemoryServerV2(options);
  return await benchClient(server.clientTransport, () => server.close());
}

/** A read binding for `localName` with no scope validator. */
export function binding(localName: string): ReadToolBinding {
  return {
    localName,
    policy: { mode: "read", title: localName },
    scope: null,
    concurrencySafe: true,
  };
}

/** 2,000 echo calls each way per round, interleaved; the median round by ratio. */
async function echoRows(): Promise<ReadPathRow[]> {
  const pair = await connect({});
  try {
    const reads = await discoverTools(pair.client, "bench", {
      echo: binding("echo"),
    }, { monitor: pair.monitor });
    const gate = new Gate({ catalogs: [reads] });
    const args = { message: PAYLOAD };
    const viaSluice = async () => {
      const [envelope] = await gate.run([{ id: "c", name: "echo", arguments: args }], {
        runId: "bench",
      });
      if (envelope.text[0]?.length !== PAYLOAD.length) throw new Error("sluice echo failed");
    };
    const viaSdk = async () => {
      const result = await pair.client.callTool({ name: "echo", arguments: args });
      const first = (result.content as { text?: string }[])[0];
      if (first?.text?.length !== PAYLOAD.length) throw new Error("callTool echo failed");
    };
    for (let i = 0; i < 300; i++) {
      await viaSluice();
      await viaSdk();
    }
    // Each round makes the 2,000 calls both ways, interleaved call by call (alternating which
    // goes first) and timed one by one, so both paths see the same machine state; the round
    // with the median ratio is reported, which damps a shared machine's noise.
    const rounds: { sluice: number; sdk: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let sluice = 0;
      let sdk = 0;
      for (let i = 0; i < CALLS; i++) {
        const sluiceFirst = i % 2 === 0;
        let start = performance.now();
        await (sluiceFirst ? viaSluice() : viaSdk());
        let end = performance.now();
        if (sluiceFirst) sluice += end - start;
        else sdk += end - start;
        start = end;
        await (sluiceFirst ? viaSdk() : viaSluice());
        end = performance.now();
        if (sluiceFirst) sdk += end - start;
        else sluice += end - start;
      }
      rounds.push({ sluice, sdk });
    }
    rounds.sort((a, b) => a.sluice / a.sdk - b.sluice / b.sdk);
    const { sluice: sluiceMs, sdk: sdkMs } = rounds[Math.floor(rounds.length / 2)];
    return [{
      kind: "comparison",
      subject: `${CALLS} sluice calls (1 KiB echo)`,
      subjectMs: sluiceMs,
      baseline: `${CALLS} client.callTool`,
      baselineMs: sdkMs,
      targetRatio: 1.15,
    }];
  } finally {
    await pair.close();
  }
}

/** Median milliseconds per tool of discovering `count` bound tools. */
async function discoveryPerTool(count: number): Promise<number> {
  const pair = await connect({ extraTools: count, onlyExtraTools: true });
  try {
    const bindings: Record<string, ReadToolBinding> = {};
    for (let i = 0; i < count; i++) {
      const name = `extra_${String(i).padStart(3, "0")}`;
      bindings[name] = binding(name);
    }
    const samples: number[] = [];
    for (let round = 0; round < DISCOVERY_ROUNDS + 3; round++) {
      const monitor = new CatalogMonitor();
      monitor.acceptProtocolVersion(pair.client.getNegotiatedProtocolVersion());
      const start = performance.now();
      const { snapshot } = await discoverTools(pair.client, "bench", bindings, { monitor });
      const elapsed = performance.now() - start;
      monitor.close();
      if (snapshot.entries.length !== count) throw new Error("discovery missed tools");
      if (round >= 3) samples.push(elapsed / count); // the first rounds warm up
    }
    return median(samples);
  } finally {
    await pair.close();
  }
}

async function discoveryRows(): Promise<ReadPathRow[]> {
  const perTool = new Map<number, number>();
  for (const size of DISCOVERY_SIZES) perTool.set(size, await discoveryPerTool(size));
  const base = perTool.get(32)!;
  return DISCOVERY_SIZES.filter((size) => size !== 32).map((size) => ({
    kind: "comparison" as const,
    subject: `discovery per tool at ${size} tools`,
    subjectMs: perTool.get(size)!,
    baseline: "discovery per tool at 32 tools",
    baselineMs: base,
    targetRatio: 1.5,
  }));
}

/** Runs both measurements and returns their rows. */
export async function runReadPathBench(): Promise<ReadPathRow[]> {
  return [...await echoRows(), ...await discoveryRows()];
}

/** The read-path benchmark, registered in `scripts/bench.ts`. */
export const readPathBenchmark: Benchmark = {
  name: "read_path",
  describe: () =>
    `${CALLS} sequential 1 KiB echo calls (sluice vs callTool); discovery of ${
      DISCOVERY_SIZES.join("/")
    } tools with ~2 KiB schemas (in-memory v2 pair)`,
  run: runReadPathBench,
};

if (import.meta.main) {
  for (const row of await runReadPathBench()) {
    const ratio = row.subjectMs / row.baselineMs;
    const verdict = row.targetRatio === undefined
      ? ""
      : ` (target <= ${row.targetRatio}: ${ratio <= row.targetRatio ? "met" : "MISSED"})`;
    console.log(
      `${row.subject}: ${row.subjectMs.toFixed(3)} ms | ${row.baseline}: ${
        row.baselineMs.toFixed(3)
      } ms | ratio ${ratio.toFixed(3)}${verdict}`,
    );
  }
}
