/**
 * `sluice inbox` as a runnable Deno entry (`deno run -A scripts/inbox.ts --db <url>`): opens
 * the libSQL store and serves the approval inbox on loopback through `Deno.serve` until SIGINT
 * or SIGTERM. `SLUICE_APPROVALS_DB` names the store when `--db` is absent. The CLI dispatcher
 * calls {@link inboxMain}.
 *
 * @module
 */
import { LibsqlApprovalStore } from "../libsql.ts";
import { runInboxCli } from "../src/cli/inbox.ts";

const encoder = new TextEncoder();

function writeAll(target: typeof Deno.stdout, text: string): void {
  const bytes = encoder.encode(text);
  for (let written = 0; written < bytes.length;) {
    written += target.writeSync(bytes.subarray(written));
  }
}

/** Runs `sluice inbox <argv>` on Deno; resolves with the exit code once the server stopped. */
export function inboxMain(argv: readonly string[]): Promise<number> {
  const defaultDb = Deno.env.get("SLUICE_APPROVALS_DB");
  const defaultPerson = Deno.env.get("USER") ?? Deno.env.get("USERNAME");
  return runInboxCli(argv, {
    stdout: (text) => writeAll(Deno.stdout, text),
    stderr: (text) => writeAll(Deno.stderr, text),
  }, {
    openStore: (url) => LibsqlApprovalStore.open(url),
    serve: (handler, address) => {
      const server = Deno.serve({ ...address, onListen() {} }, handler);
      const stop = () => void server.shutdown();
      for (const signal of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(signal, stop);
      return Promise.resolve({ port: server.addr.port, finished: server.finished });
    },
    ...(defaultDb === undefined ? {} : { defaultDb }),
    ...(defaultPerson === undefined ? {} : { defaultPerson }),
  });
}

if (import.meta.main) Deno.exit(await inboxMain(Deno.args));
