/**
 * `secureFetch` alone over plain `fetch`, on the request the v2 SDK sends for a 2026-07-28
 * `tools/call` (its init: a `Headers` object and a combined abort signal), against the `connect`
 * benchmark's server (its own process); then the deadline primitives alone (a timer and
 * `AbortSignal.any` per deadline against one `DeadlineQueue`). Median client CPU and wall time per
 * request, rotating order. Not part of `deno task bench`:
 * `deno run -A scripts/experiments/secure_fetch_costs.ts [small|large] [turns]`.
 *
 * @module
 */
import { secureFetch } from "../../mod.ts";
import { DeadlineQueue } from "../../src/deadline.ts";
import { timerDeadline } from "./timer_deadline.ts";
import { startConnectServer } from "../bench/connect_server.ts";
import { measure, printFigures, type Variant } from "./rotation.ts";

const [tool = "small", turnsText = "3000"] = Deno.args;
const turns = Number(turnsText);
const server = await startConnectServer();
const url = new URL(`${server.origin}/calls`);
const body = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: {
    name: tool,
    arguments: { query: "sluice" },
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "costs", version: "0.0.0" },
      "io.modelcontextprotocol/clientCapabilities": {},
    },
  },
});
/** The init as the SDK's transport builds it for each request. */
const sdkInit = (): RequestInit => {
  const headers = new Headers();
  headers.set("mcp-protocol-version", "2026-07-28");
  headers.set("mcp-method", "tools/call");
  headers.set("mcp-name", tool);
  headers.set("content-type", "application/json");
  headers.set("accept", "application/json, text/event-stream");
  const signal = AbortSignal.any([new AbortController().signal, new AbortController().signal]);
  return { method: "POST", headers, body, signal };
};
const hardened = secureFetch({ dangerouslyAllowLoopback: true });
const variants: Variant[] = [
  ["fetch + json()", async () => await (await fetch(url, sdkInit())).json()],
  ["secureFetch + json()", async () => await (await hardened(url, sdkInit())).json()],
];
try {
  printFigures(`secureFetch alone, ${tool} result`, variants, await measure(variants, turns));
} finally {
  await server.close();
}

// The deadline primitives alone: start, read the signal, stop; 100,000 times each.
const caller = new AbortController().signal;
const queue = new DeadlineQueue(30_000);
const primitives: [string, () => void][] = [
  ["timer + AbortSignal.any", () => {
    const deadline = timerDeadline(caller, 30_000);
    deadline.signal.aborted;
    deadline.stop();
  }],
  ["DeadlineQueue", () => {
    const deadline = queue.start(caller);
    deadline.signal.aborted;
    deadline.stop();
  }],
];
console.log("deadline started and stopped, µs each");
for (let round = 0; round < 3; round++) {
  for (const [name, run] of primitives) {
    const start = performance.now();
    for (let i = 0; i < 100_000; i++) run();
    console.log(
      `  ${name.padEnd(24)} ${((performance.now() - start) * 1000 / 100_000).toFixed(2)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
