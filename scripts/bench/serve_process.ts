/**
 * `sluice serve` as its own process for the `serve` benchmark, as it is deployed: `serve()` in
 * front of the benchmark server's `/calls` tools (all pre-approved reads, one bearer-token client,
 * an in-memory store), in `Deno.serve` on 127.0.0.1. The client's CPU time is then measured
 * apart from the gateway's, as the direct path measures it apart from the upstream's.
 *
 * `deno run --allow-net=127.0.0.1 --allow-read --allow-env scripts/bench/serve_process.ts
 * <upstream origin>` prints `LISTENING <origin>` (the endpoint is `<origin>/mcp`) and serves until
 * SIGTERM or its stdin closes.
 *
 * @module
 */
import process from "node:process";
import { MemoryApprovalStore } from "../../mod.ts";
import { serve } from "../../serve.ts";
import {
  CALL_RESULTS,
  type ConnectServer,
  startBenchProcess,
  stopOnParentExit,
} from "./connect_server.ts";

/** Where the gateway process answers its own CPU time, `{ user, system }` in microseconds. */
export const CPU_PATH = "/__bench/cpu";

/** The token of the benchmark's one client. */
export const SERVE_BENCH_TOKEN = "bench-token-0123456789abcdef0123456789abcdef";

/** Starts `serve()` in its own process in front of `upstreamOrigin`'s `/calls`. */
export function startServeProcess(upstreamOrigin: string): Promise<ConnectServer> {
  return startBenchProcess(import.meta.url, [upstreamOrigin]);
}

if (import.meta.main) {
  const tools = Object.keys(CALL_RESULTS).map((tool) => `bench.${tool}`);
  const served = await serve({
    servers: [{ id: "bench", url: `${Deno.args[0]}/calls` }],
    allow: tools,
    preApproved: tools,
    store: new MemoryApprovalStore(),
    allowNonDurableStoreForTests: true,
    transport: { dangerouslyAllowLoopback: true },
    serve: {
      clients: [{ name: "bench", token: SERVE_BENCH_TOKEN }],
      limits: { maxConcurrentCalls: 64 },
    },
  });
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: (addr) => console.log(`LISTENING http://127.0.0.1:${addr.port}`),
  }, (request) =>
    // The benchmark reads this process's CPU time here (bench only, not part of serve).
    new URL(request.url).pathname === CPU_PATH
      ? Response.json(process.cpuUsage())
      : served.fetch(request));
  stopOnParentExit(async () => {
    await served.close();
    await server.shutdown();
  });
}
