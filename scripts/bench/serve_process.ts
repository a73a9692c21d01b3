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
import { CALL_RESULTS, type ConnectServer, stopOnParentExit } from "./connect_server.ts";

/** Where the gateway process answers its own CPU time, `{ user, system }` in microseconds. */
export const CPU_PATH = "/__bench/cpu";

/** The token of the benchmark's one client. */
export const SERVE_BENCH_TOKEN = "bench-token-0123456789abcdef0123456789abcdef";

/**
 * The runtime flag both benchmark servers (the upstream and the gateway) run with: Deno.serve's
 * legacy behaviour aborts every request's signal when its response is done, building a
 * `DOMException` per request (seen in a CPU profile of the gateway); the flag turns that off.
 * It is what `docs/serve.md` recommends for a deployed gateway, and both paths get it.
 */
export const SERVE_BENCH_FLAGS: readonly string[] = ["--unstable-no-legacy-abort"];

/** Starts `serve()` in its own process in front of `upstreamOrigin`'s `/calls`. */
export function startServeProcess(upstreamOrigin: string): Promise<ConnectServer> {
  return startFlaggedProcess(import.meta.url, [upstreamOrigin]);
}

/** Starts the benchmark server (`connect_server.ts`) with the same flags as the gateway. */
export function startServeUpstream(): Promise<ConnectServer> {
  return startFlaggedProcess(new URL("./connect_server.ts", import.meta.url).href, []);
}

/**
 * A benchmark server module as a child process with {@link SERVE_BENCH_FLAGS} (loopback
 * network, read and env access), as `startBenchProcess` starts one; waits for `LISTENING`.
 */
async function startFlaggedProcess(
  module: string,
  args: readonly string[],
): Promise<ConnectServer> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      ...SERVE_BENCH_FLAGS,
      "--allow-net=127.0.0.1",
      "--allow-read",
      "--allow-env",
      new URL(module).pathname,
      ...args,
    ],
    cwd: new URL("../../", import.meta.url).pathname,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  while (!buffered.includes("\n")) {
    const { value, done } = await lines.read();
    if (done) throw new Error("the benchmark server exited before listening");
    buffered += value;
  }
  const match = /LISTENING (\S+)/.exec(buffered);
  if (match === null) throw new Error(`unexpected server output: ${buffered}`);
  lines.releaseLock();
  child.stdout.cancel().catch(() => {});
  return {
    origin: match[1]!,
    close: async () => {
      await child.stdin.close().catch(() => {});
      const timer = setTimeout(() => {
        try {
          child.kill("SIGTERM");
        } catch { /* already gone */ }
      }, 5_000);
      await child.status;
      clearTimeout(timer);
    },
  };
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
