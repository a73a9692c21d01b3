/**
 * What the cost experiments share: variants measured once per turn in a rotating order, each
 * call timed on its own (process CPU by `process.cpuUsage`, and wall time), reported as medians;
 * the read binding of a benchmark tool; and the paths on connect()'s own session.
 *
 * @module
 */
import process from "node:process";
import {
  connect,
  type Connection,
  discoverTools,
  Gate,
  type ReadToolBinding,
  secureFetch,
  type ToolRegistration,
} from "../../mod.ts";
import { ServerSession } from "../../src/connect/session.ts";

/** One path to measure: its name and one run of it. */
export type Variant = readonly [name: string, run: () => Promise<unknown>];

/** A variant's median client CPU and wall time per run, in microseconds. */
export interface Figures {
  readonly cpu: number;
  readonly wall: number;
}

const median = (values: readonly number[]): number =>
  Math.round(values.toSorted((a, b) => a - b)[values.length >> 1]);

/**
 * Runs every variant `warmup` times, then `turns` turns of one run each in an order that rotates
 * every turn; returns each variant's medians.
 */
export async function measure(
  variants: readonly Variant[],
  turns: number,
  warmup = 300,
): Promise<Figures[]> {
  for (let i = 0; i < warmup; i++) for (const [, run] of variants) await run();
  const cpu = variants.map(() => [] as number[]);
  const wall = variants.map(() => [] as number[]);
  for (let turn = 0; turn < turns; turn++) {
    for (let step = 0; step < variants.length; step++) {
      const index = (turn + step) % variants.length;
      const before = process.cpuUsage();
      const start = performance.now();
      await variants[index][1]();
      wall[index].push((performance.now() - start) * 1000);
      const after = process.cpuUsage();
      cpu[index].push(after.user - before.user + after.system - before.system);
    }
  }
  return variants.map((_, index) => ({ cpu: median(cpu[index]), wall: median(wall[index]) }));
}

/** Prints each variant's figures and their difference to the first variant's. */
export function printFigures(
  title: string,
  variants: readonly Variant[],
  figures: readonly Figures[],
): void {
  console.log(`\n${title} (median per call, µs: CPU, wall; delta to the first row)`);
  const signed = (value: number) => `${value >= 0 ? "+" : ""}${value}`;
  variants.forEach(([name], index) => {
    const { cpu, wall } = figures[index];
    console.log(
      `  ${name.padEnd(40)} CPU ${String(cpu).padStart(5)} ${
        signed(cpu - figures[0].cpu).padStart(5)
      }   wall ${String(wall).padStart(5)} ${signed(wall - figures[0].wall).padStart(5)}`,
    );
  });
}

/** The read binding of the benchmark tool `name`. */
export function readBinding(name: string): ReadToolBinding {
  return {
    localName: name,
    policy: { mode: "read", title: name },
    scope: null,
    concurrencySafe: true,
  };
}

/** connect()'s own session with a registration and a gate on it, and a `connect()`, for `small`. */
export interface SessionPaths {
  readonly session: ServerSession;
  readonly registration: ToolRegistration;
  readonly gate: Gate;
  readonly connection: Connection;
  close(): Promise<void>;
}

/** Opens {@link SessionPaths} against the benchmark server's `/calls` endpoint `url`. */
export async function sessionPaths(url: string): Promise<SessionPaths> {
  const session = new ServerSession({
    url: new URL(url),
    fetch: secureFetch({ dangerouslyAllowLoopback: true }),
    timeoutMs: 30_000,
  });
  await session.ready();
  const found = await discoverTools(session, "b", { small: readBinding("small") }, {
    monitor: session.monitor,
  });
  const connection = await connect(url, {
    id: "bench",
    allow: ["small"],
    preApproved: ["small"],
    transport: { dangerouslyAllowLoopback: true },
  });
  return {
    session,
    registration: found.registrations[0],
    gate: new Gate({ catalogs: [found] }),
    connection,
    close: async () => {
      await connection.close();
      await session.close();
    },
  };
}
