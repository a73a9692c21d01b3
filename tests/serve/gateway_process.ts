/**
 * `sluice serve` as its own process (`deno run -A cli.ts serve --config ... --db ...`), for the
 * crash and fleet suites: resolves once it printed its URL; its stderr is kept, its audit lines
 * drained; `kill` is SIGKILL, `stop` SIGTERM (a graceful shutdown).
 */
import { IDE_TOKEN } from "./setup.ts";

const CLI = new URL("../../cli.ts", import.meta.url).pathname;

/** `sluice serve` as a child process; resolves once it printed its URL. */
/** Starts the command on loopback with the `ide` client's token in its environment. */
export async function startGateway(config: string, db: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      CLI,
      "serve",
      "--config",
      config,
      "--db",
      db,
      "--port",
      "0",
      "--allow-loopback",
    ],
    env: { IDE_TOKEN },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr: string[] = [];
  (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) stderr.push(chunk);
  })().catch(() => {});
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  let url: URL | undefined;
  while (url === undefined) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`sluice serve exited: ${stderr.join("")}`);
    seen += value;
    const match = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(seen);
    if (match) url = new URL(match[1]);
  }
  // Keep draining the audit lines so the child never blocks on a full pipe.
  (async () => {
    for (;;) if ((await reader.read()).done) break;
  })().catch(() => {});
  return {
    url,
    stderr,
    pid: child.pid,
    kill: async () => {
      Deno.kill(child.pid, "SIGKILL");
      return await child.status;
    },
    stop: async () => {
      Deno.kill(child.pid, "SIGTERM");
      return await child.status;
    },
  };
}
