/**
 * `sluice` command line (`deno task sluice approvals ...`): a thin shim that opens the store
 * (libSQL, or PostgreSQL for a `postgres://` URL) and hands argv to the testable CLI in
 * `src/cli/`. `SLUICE_APPROVALS_DB` names the store when `--db` is absent;
 * `SLUICE_APPROVALS_DB_PASSWORD` is the PostgreSQL password.
 *
 * @module
 */
import { openStoreByUrl } from "../src/cli/open_store.ts";
import { APPROVALS_USAGE, EXIT_USAGE, runApprovalsCli } from "../src/cli/approvals.ts";

const encoder = new TextEncoder();

function writeAll(target: typeof Deno.stdout, text: string): void {
  const bytes = encoder.encode(text);
  for (let written = 0; written < bytes.length;) {
    written += target.writeSync(bytes.subarray(written));
  }
}
const [group, ...rest] = Deno.args;
if (group !== "approvals") {
  writeAll(Deno.stderr, `usage: sluice approvals <command>\n${APPROVALS_USAGE}\n`);
  Deno.exit(EXIT_USAGE);
}
const defaultDb = Deno.env.get("SLUICE_APPROVALS_DB");
const code = await runApprovalsCli(rest, {
  stdout: (text) => writeAll(Deno.stdout, text),
  stderr: (text) => writeAll(Deno.stderr, text),
}, {
  openStore: (url) => openStoreByUrl(url, Deno.env.get("SLUICE_APPROVALS_DB_PASSWORD")),
  ...(defaultDb === undefined ? {} : { defaultDb }),
});
Deno.exit(code);
