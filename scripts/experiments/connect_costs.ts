/**
 * Where a `connect()` call spends its client CPU beyond the raw v2 SDK's `callTool`, against
 * the `connect` benchmark's server (`scripts/bench/connect_server.ts`, its own process):
 *
 * 1. The hardened fetch step by step: plain `fetch` + `json()`, then each of `secureFetch`'s
 *    steps added in turn (URL check, the prepared `Request` with the header rules applied to
 *    its own headers, the deadline signal and its race, the body of declared length read in one native read into a re-wrapped
 *    `Response`), then `secureFetch` itself; and, for comparison, the same body as a counted
 *    stream (`limitBody`, the path of chunked bodies and event streams).
 * 2. The call layers: the raw client (global fetch, then over `secureFetch`), a registration
 *    on the raw client (global fetch, then over `secureFetch`), a registration on connect()'s
 *    own session, the gate over it, and `toolkit.call`.
 *
 * 3. The CPU a request's deadline costs after the request, when its timer fires: N requests
 *    with a 2 s deadline, then the process's CPU while idle for 2.5 s, per request: secureFetch
 *    (timer stopped at the end) vs plain fetch on `AbortSignal.any` + `AbortSignal.timeout`
 *    (which cannot be stopped), vs plain fetch with no deadline.
 *
 * Every variant of 1 and 2 runs once per turn in a rotating order; the figure is each one's
 * median CPU time per call (`process.cpuUsage`, the whole client process). Not part of `deno task bench`:
 * `deno run -A scripts/experiments/connect_costs.ts [turns]`.
 *
 * @module
 */
import process from "node:process";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { CatalogMonitor, discoverTools, secureFetch } from "../../mod.ts";
import { deadlineSignal, untilAborted } from "../../src/deadline.ts";
import { timerDeadline } from "./timer_deadline.ts";
import { TransportError } from "../../src/transport/errors.ts";
import { limitBody, readDeclaredBody } from "../../src/transport/limited_body.ts";
import { checkUrl } from "../../src/transport/policy.ts";
import { startConnectServer } from "../bench/connect_server.ts";
import { measure, printFigures, readBinding, sessionPaths, type Variant } from "./rotation.ts";

/** The exact request the SDK sends for a 2026-07-28 `tools/call` of `small`. */
const callBody = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: {
    name: "small",
    arguments: { query: "sluice" },
    // The SDK's own per-request metadata; without it the server answers 400.
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "costs", version: "0.0.0" },
      "io.modelcontextprotocol/clientCapabilities": {},
    },
  },
});
const headers = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/call",
  "mcp-name": "small",
};

/** The transport steps, on that request. */
function transportSteps(url: string): Variant[] {
  const body = callBody;
  const toError = (error: unknown) => new TransportError("transport_failed", String(error));
  const step = async (level: number) => {
    const stops: (() => void)[] = [];
    try {
      return await stepOnce(level, stops);
    } finally {
      for (const stop of stops) stop();
    }
  };
  const stepOnce = async (level: number, stops: (() => void)[]) => {
    const init: RequestInit = { method: "POST", headers, body };
    let target: string | URL | Request = url;
    if (level >= 1) target = checkUrl(url, { allowLoopback: true }).url;
    const caller = new AbortController().signal;
    const deadline = level >= 3 ? timerDeadline(caller, 30_000) : undefined;
    const signal = deadline?.signal ?? caller;
    if (deadline) stops.push(deadline.stop);
    if (level >= 2) {
      const request = new Request(target, {
        ...init,
        signal,
        redirect: "manual",
        duplex: "half",
      } as RequestInit);
      request.headers.delete("authorization");
      request.headers.delete("cookie");
      request.headers.delete("proxy-authorization");
      request.headers.set("accept-encoding", "identity");
      target = request;
    }
    const pending = level >= 2 ? fetch(target) : fetch(target, { ...init, signal });
    const response = level >= 3 ? await untilAborted(pending, signal) : await pending;
    if (response.status !== 200) throw new Error(`the server answered ${response.status}`);
    if (level < 4) return await response.json();
    const replyBody = level >= 5
      ? limitBody(response.body!, 1024 * 1024, deadline!, toError)
      : await readDeclaredBody(response, 1024 * 1024, signal);
    const wrapped = new Response(replyBody, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    return await wrapped.json();
  };
  const hardened = secureFetch({ dangerouslyAllowLoopback: true });
  return [
    ["fetch + json()", () => step(0)],
    ["+ checkUrl", () => step(1)],
    ["+ prepared Request, header rules in it", () => step(2)],
    ["+ deadline (any + stoppable timer, race)", () => step(3)],
    ["+ one native read, re-wrapped Response", () => step(4)],
    ["  (instead: limitBody, counted JS stream)", () => step(5)],
    ["secureFetch", async () => {
      const init = { method: "POST", headers, body };
      return await (await hardened(url, init)).json();
    }],
  ];
}

async function rawClient(url: string, fetch?: typeof globalThis.fetch): Promise<Client> {
  const client = new Client({ name: "costs", version: "0.0.0" }, {
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    versionNegotiation: { mode: "auto" },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), fetch ? { fetch } : {}));
  await client.listTools();
  return client;
}

const turns = Number(Deno.args[0] ?? 1_500);
const server = await startConnectServer();
const url = `${server.origin}/calls`;
const closers: (() => Promise<void>)[] = [server.close];
try {
  const steps = transportSteps(url);
  printFigures("secureFetch, step by step", steps, await measure(steps, turns, 200));

  const args = { query: "sluice" };
  const binding = readBinding("small");
  const onClient = async (client: Client) => {
    const monitor = new CatalogMonitor();
    monitor.acceptProtocolVersion(client.getNegotiatedProtocolVersion());
    return (await discoverTools(client, "b", { small: binding }, { monitor })).registrations[0];
  };
  const plain = await rawClient(url);
  const hardened = await rawClient(
    url,
    secureFetch({ dangerouslyAllowLoopback: true }) as typeof fetch,
  );
  const paths = await sessionPaths(url);
  const { registration, gate, connection } = paths;
  closers.push(() => paths.close());
  closers.push(() => plain.close(), () => hardened.close());
  const onPlain = await onClient(plain);
  const onHardened = await onClient(hardened);
  let id = 0;
  const layers: Variant[] = [
    ["raw callTool", () => plain.callTool({ name: "small", arguments: args })],
    ["raw callTool over secureFetch", () => hardened.callTool({ name: "small", arguments: args })],
    ["registration, raw client", () => onPlain.call(args)],
    ["registration, raw client + secureFetch", () => onHardened.call(args)],
    ["registration, connect()'s session", () => registration.call(args)],
    [
      "gate.run, connect()'s session",
      () => gate.run([{ id: String(++id), name: "small", arguments: args }], { runId: "costs" }),
    ],
    ["toolkit.call", () => connection.toolkit.call("bench__small", args)],
  ];
  printFigures("call layers, 1 KiB result", layers, await measure(layers, turns, 200));

  const shortDeadline = secureFetch({ dangerouslyAllowLoopback: true, timeoutMs: 2_000 });
  const fire: Variant[] = [
    ["plain fetch, no deadline", async () => {
      await (await fetch(url, { method: "POST", headers, body: callBody })).json();
    }],
    ["plain fetch, any + AbortSignal.timeout", async () => {
      const signal = deadlineSignal(new AbortController().signal, 2_000);
      await (await fetch(url, { method: "POST", headers, body: callBody, signal })).json();
    }],
    ["secureFetch (timer stopped)", async () => {
      const init = {
        method: "POST",
        headers,
        body: callBody,
        signal: new AbortController().signal,
      };
      await (await shortDeadline(url, init)).json();
    }],
  ];
  console.log(
    "\nCPU spent after the requests, while their deadlines' timers fire (µs per request)",
  );
  for (const [name, run] of fire) {
    const count = Math.min(turns, 1_000);
    for (let i = 0; i < count; i++) await run();
    const before = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const after = process.cpuUsage();
    const perRequest = (after.user - before.user + after.system - before.system) / count;
    console.log(`  ${name.padEnd(40)} ${perRequest.toFixed(1).padStart(6)}`);
  }
} finally {
  for (const close of closers.reverse()) await close();
}
