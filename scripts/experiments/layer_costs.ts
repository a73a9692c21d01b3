/**
 * sluice's own call layers with the network taken out: a session that answers at once (in
 * process, a fixed 1 KiB text result), under a registration, the gate and a toolkit-like
 * wrapper. Median CPU and wall time per call, rotating order (`process.cpuUsage` itself costs a
 * few µs, in every row). Not part of
 * `deno task bench`: `deno run -A scripts/experiments/layer_costs.ts [turns]`.
 *
 * @module
 */
import { CatalogMonitor, discoverTools, Gate } from "../../mod.ts";
import type { McpSession } from "../../src/session/session.ts";
import { CALL_RESULTS, CALL_TOOLS } from "../bench/connect_server.ts";
import { measure, printFigures, readBinding, type Variant } from "./rotation.ts";

const TOOLS = { tools: CALL_TOOLS.filter((tool) => tool.name === "small") };
const RESULT = { content: [{ type: "text", text: CALL_RESULTS.small }] };

const monitor = new CatalogMonitor();
monitor.acceptProtocolVersion("2026-07-28");
const session: McpSession = {
  kind: "mcp_session",
  closed: false,
  request: (method) => Promise.resolve(structuredClone(method === "tools/list" ? TOOLS : RESULT)),
};
const binding = readBinding("small");
const found = await discoverTools(session, "b", { small: binding }, { monitor });
const registration = found.registrations[0];
const gate = new Gate({ catalogs: [found] });
const args = { query: "sluice" };
let id = 0;
const variants: Variant[] = [
  ["session.request alone", () => session.request("tools/call", {}, { timeoutMs: 1 })],
  ["registration.call", () => registration.call(args)],
  [
    "gate.run",
    () => gate.run([{ id: String(++id), name: "small", arguments: args }], { runId: "r" }),
  ],
  [
    "gate.run, randomUUID id",
    () => gate.run([{ id: crypto.randomUUID(), name: "small", arguments: args }], { runId: "r" }),
  ],
];
const turns = Number(Deno.args[0] ?? 20_000);
printFigures(
  "sluice's layers on an in-process session",
  variants,
  await measure(variants, turns, 2000),
);
monitor.close();
