/**
 * `deno task bench stdio`: `toolkit.call` through `connect()` over sluice's stdio transport vs the
 * raw v2 SDK `Client` over the SDK's own `StdioClientTransport`, both against the real
 * server-everything (its stdio mode, one process each, run by this Deno binary), `echo` with a
 * short and a 32 KiB message. Calls alternate between the two paths (the order flips each call);
 * the ratio is the median of each round's ratio of medians.
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { connect } from "../../mod.ts";
import { type Benchmark, type BenchRow, median } from "./types.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const SERVER = ["run", "-A", `${ROOT}fixtures/server_everything.ts`, "stdio"];
const WARMUP = 50;
const ROUNDS = 5;
const CALLS_PER_ROUND = 100;
const SIZES = [{ label: "short", message: "hello" }, {
  label: "32 KiB",
  message: "x".repeat(32768),
}];

async function rawClient(): Promise<Client> {
  const client = new Client({ name: "bench-raw", version: "0" }, {
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });
  await client.connect(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: SERVER,
      cwd: ROOT,
      env: { HOME: Deno.env.get("HOME") ?? "" },
      stderr: "ignore",
    }),
  );
  return client;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

/** The stdio benchmark. */
export const stdioBenchmark: Benchmark = {
  name: "stdio",
  describe: () =>
    `connect() over stdio vs the raw v2 client over the SDK's StdioClientTransport, ` +
    `server-everything echo (${SIZES.map((size) => size.label).join(", ")}), ` +
    `${ROUNDS} rounds of ${CALLS_PER_ROUND} alternating calls after ${WARMUP} warm-up calls`,
  async run() {
    const raw = await rawClient();
    const connection = await connect({
      command: Deno.execPath(),
      args: SERVER,
      cwd: ROOT,
      inheritEnv: ["HOME"],
    }, { id: "everything", allow: ["echo"], preApproved: ["echo"] });
    const rows: BenchRow[] = [];
    try {
      for (const size of SIZES) {
        const args = { message: size.message };
        const paths = [
          () => raw.callTool({ name: "echo", arguments: args }),
          async () => {
            const envelope = await connection.toolkit.call("everything__echo", args);
            if (envelope.errorCode !== undefined) throw new Error(envelope.errorCode);
          },
        ];
        for (let i = 0; i < WARMUP; i++) for (const path of paths) await path();
        const base: number[] = [];
        const subject: number[] = [];
        const ratios: number[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          const times: [number[], number[]] = [[], []];
          for (let i = 0; i < CALLS_PER_ROUND; i++) {
            for (const index of i % 2 === 0 ? [0, 1] : [1, 0]) {
              times[index].push(await timed(paths[index]));
            }
          }
          base.push(...times[0]);
          subject.push(...times[1]);
          ratios.push(median(times[1]) / median(times[0]));
        }
        rows.push({
          kind: "comparison",
          subject: `connect() over stdio toolkit.call echo ${size.label}`,
          subjectMs: median(subject),
          baseline: `raw v2 client StdioClientTransport callTool echo ${size.label}`,
          baselineMs: median(base),
          ratio: median(ratios),
          ratioRange: [Math.min(...ratios), Math.max(...ratios)],
        });
      }
    } finally {
      await connection.close();
      await raw.close();
    }
    return rows;
  },
};
