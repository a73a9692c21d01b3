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
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { CatalogMonitor, discoverTools, secureFetch } from "../../mod.ts";
import { ReplyStreams } from "../../src/connect/stream_failure.ts";
import { startConnectServer } from "../bench/connect_server.ts";
import { measure, printFigures, readBinding, sessionPaths, type Variant } from "./rotation.ts";

const binding = readBinding("small");

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
  const paths = await sessionPaths(url);
  const { registration, gate, connection } = paths;
  closers.push(() => paths.close());
  let id = 0;
  const variants: Variant[] = [
    ["registration, raw client + secureFetch", () => bare.registration.call(args)],
    ["  + ReplyStreams", () => replies.registration.call(args)],
    ["  + ReplyStreams + onmessage hook", () => hooked.registration.call(args)],
    ["registration, ServerSession", () => registration.call(args)],
    [
      "gate.run, ServerSession",
      () => gate.run([{ id: String(++id), name: "small", arguments: args }], { runId: "costs" }),
    ],
    ["toolkit.call", () => connection.toolkit.call("bench__small", args)],
    ["raw callTool (global fetch)", () => raw.callTool({ name: "small", arguments: args })],
  ];
  printFigures("connect()'s session, piece by piece", variants, await measure(variants, turns));
} finally {
  for (const close of closers.reverse()) await close();
}
