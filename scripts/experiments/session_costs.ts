/**
 * What connect()'s session adds to one call above the raw v2 client over `secureFetch`, piece
 * by piece, against the `connect` benchmark's server (its own process): a registration on the
 * raw client over `secureFetch`, then the same client with `ReplyStreams` around its transport,
 * then with the session's `onmessage` hook too, then connect()'s own `ServerSession`, the gate
 * over it and `toolkit.call`, then the raw client's own `callTool` (global fetch) for scale.
 * Median client CPU (`process.cpuUsage`) and wall time per call, every variant once per turn in a
 * rotating order. Not part of `deno task bench`:
 * `deno run -A scripts/experiments/session_costs.ts [turns]`.
 *
 * @module
 */
import process from "node:process";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import {
  CatalogMonitor,
  connect,
  discoverTools,
  Gate,
  type ReadToolBinding,
  secureFetch,
} from "../../mod.ts";
import { ServerSession } from "../../src/connect/session.ts";
import { ReplyStreams } from "../../src/connect/stream_failure.ts";
import { startConnectServer } from "../bench/connect_server.ts";

type Variant = readonly [name: string, run: () => Promise<unknown>];

/** Median client CPU and wall microseconds per call of each variant. */
async function perCall(
  variants: readonly Variant[],
  turns: number,
): Promise<{ cpu: number; wall: number }[]> {
  for (let i = 0; i < 300; i++) for (const [, run] of variants) await run();
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
  const median = (values: number[]) =>
    Math.round(values.toSorted((a, b) => a - b)[values.length >> 1]);
  return variants.map((_, index) => ({ cpu: median(cpu[index]), wall: median(wall[index]) }));
}

const binding: ReadToolBinding = {
  localName: "small",
  policy: { mode: "read", title: "small" },
  scope: null,
  concurrencySafe: true,
};

/** A registration of `small` on a raw client over `secureFetch`, with the given pieces. */
async function registrationOn(url: string, replies: boolean, hook: boolean) {
  const client = new Client({ name: "costs", version: "0.0.0" }, {
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    versionNegotiation: { mode: "auto" },
  });
  const monitor = new CatalogMonitor();
  const hardened = secureFetch({ dangerouslyAllowLoopback: true });
  const streams = new ReplyStreams();
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: replies ? streams.fetch(hardened) : hardened,
  });
  if (hook) transport.onmessage = monitor.onMessage;
  if (replies) streams.watch(transport);
  await client.connect(transport);
  monitor.acceptProtocolVersion(client.getNegotiatedProtocolVersion());
  const found = await discoverTools(client, "b", { small: binding }, { monitor });
  return { client, monitor, registration: found.registrations[0] };
}

const turns = Number(Deno.args[0] ?? 1_500);
const server = await startConnectServer();
const url = `${server.origin}/calls`;
const closers: (() => Promise<void>)[] = [server.close];
try {
  const args = { query: "sluice" };
  const bare = await registrationOn(url, false, false);
  const replies = await registrationOn(url, true, false);
  const hooked = await registrationOn(url, true, true);
  for (const item of [bare, replies, hooked]) {
    closers.push(async () => {
      item.monitor.close();
      await item.client.close();
    });
  }
  const raw = new Client({ name: "costs", version: "0.0.0" }, {
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    versionNegotiation: { mode: "auto" },
  });
  await raw.connect(new StreamableHTTPClientTransport(new URL(url)));
  await raw.listTools();
  closers.push(() => raw.close());
  const session = new ServerSession({
    url: new URL(url),
    fetch: secureFetch({ dangerouslyAllowLoopback: true }),
    timeoutMs: 30_000,
  });
  await session.ready();
  closers.push(() => session.close());
  const found = await discoverTools(session, "b", { small: binding }, {
    monitor: session.monitor,
  });
  const gate = new Gate({ catalogs: [found] });
  const connection = await connect(url, {
    id: "bench",
    allow: ["small"],
    preApproved: ["small"],
    transport: { dangerouslyAllowLoopback: true },
  });
  closers.push(() => connection.close());
  let id = 0;
  const variants: Variant[] = [
    ["registration, raw client + secureFetch", () => bare.registration.call(args)],
    ["  + ReplyStreams", () => replies.registration.call(args)],
    ["  + ReplyStreams + onmessage hook", () => hooked.registration.call(args)],
    ["registration, ServerSession", () => found.registrations[0].call(args)],
    [
      "gate.run, ServerSession",
      () => gate.run([{ id: String(++id), name: "small", arguments: args }], { runId: "costs" }),
    ],
    ["toolkit.call", () => connection.toolkit.call("bench__small", args)],
    ["raw callTool (global fetch)", () => raw.callTool({ name: "small", arguments: args })],
  ];
  const figures = await perCall(variants, turns);
  console.log("median per call, µs (CPU, wall); delta to the first row");
  const signed = (value: number) => `${value >= 0 ? "+" : ""}${value}`;
  variants.forEach(([name], index) => {
    const { cpu, wall } = figures[index];
    console.log(
      `  ${name.padEnd(40)} CPU ${String(cpu).padStart(5)} ${
        signed(cpu - figures[0].cpu).padStart(5)
      }` +
        `   wall ${String(wall).padStart(5)} ${signed(wall - figures[0].wall).padStart(5)}`,
    );
  });
} finally {
  for (const close of closers.reverse()) await close();
}
