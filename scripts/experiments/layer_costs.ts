/**
 * sluice's own call layers with the network taken out: a session that answers at once (in
 * process, a fixed 1 KiB text result), under a registration, the gate and a toolkit-like
 * wrapper. Median CPU per call (`process.cpuUsage`), rotating order. Not part of
 * `deno task bench`: `deno run -A scripts/experiments/layer_costs.ts [turns]`.
 *
 * @module
 */
import process from "node:process";
import { CatalogMonitor, discoverTools, Gate, type ReadToolBinding } from "../../mod.ts";
import type { McpSession } from "../../src/session/session.ts";

const TOOLS = {
  tools: [{
    name: "small",
    description: "Returns 1024 bytes of text.",
    inputSchema: {
      type: "object",
      properties: { query: { type: "string", maxLength: 256 } },
      required: ["query"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  }],
};
const RESULT = { content: [{ type: "text", text: "s".repeat(1024) }] };

const monitor = new CatalogMonitor();
monitor.acceptProtocolVersion("2026-07-28");
const session: McpSession = {
  kind: "mcp_session",
  closed: false,
  request: (method) => Promise.resolve(structuredClone(method === "tools/list" ? TOOLS : RESULT)),
};
const binding: ReadToolBinding = {
  localName: "small",
  policy: { mode: "read", title: "small" },
  scope: null,
  concurrencySafe: true,
};
const found = await discoverTools(session, "b", { small: binding }, { monitor });
const registration = found.registrations[0];
const gate = new Gate({ catalogs: [found] });
const args = { query: "sluice" };
let id = 0;
const variants: [string, () => Promise<unknown>][] = [
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
for (let i = 0; i < 2000; i++) for (const [, run] of variants) await run();
const samples = variants.map(() => [] as number[]);
for (let turn = 0; turn < turns; turn++) {
  for (let step = 0; step < variants.length; step++) {
    const index = (turn + step) % variants.length;
    const before = process.cpuUsage();
    await variants[index][1]();
    const after = process.cpuUsage();
    samples[index].push(after.user - before.user + after.system - before.system);
  }
}
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
console.log("mean CPU per call, µs");
variants.forEach(([name], index) =>
  console.log(`  ${name.padEnd(30)} ${mean(samples[index]).toFixed(1).padStart(7)}`)
);
monitor.close();
