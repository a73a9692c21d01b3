// The first-run consumer: what a new user does right after `npm install @sluice/mcp` alone, run
// unchanged by Node 20, Node 22, Bun and Deno in a fresh project where only the packed tarball is
// installed (scripts/check_npm.ts copies it there):
//   <runtime> consumer.mjs <MCP url> <url where nothing listens> <run label>
// connect() to the loopback write fixture, export one provider's tools, make a read call; connect
// to a server that is down; run `sluice login --help` from the installed bin; check that each
// optional package (not installed here) is refused by the entry needing it with
// `dependency_missing` and the line to install it; check that DNS pinning holds and pins a request
// by name. Prints "consumer ok <label> ..." and exits 0, or throws.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { codeOf, connect, secureFetch } from "@sluice/mcp";

const [url, downUrl, label] = process.argv.slice(2);
const loopback = { dangerouslyAllowLoopback: true, timeoutMs: 15_000 };

function check(condition, what) {
  if (!condition) throw new Error(`consumer ${label}: check failed: ${what}`);
}

// 1. connect(), one provider's export, one read call.
const connection = await connect(url, {
  id: "records",
  allow: ["read_record"],
  preApproved: ["read_record"],
  transport: loopback,
});
try {
  const tools = connection.toolkit.toAnthropicTools().map((tool) => tool.name);
  check(tools.join() === "records__read_record", `tools ${tools}`);
  const read = await connection.toolkit.call("records__read_record", { key: `first-${label}` });
  check(read.errorCode === undefined && read.structured?.found === false, "the read call");
} finally {
  await connection.close();
}

// 2. A server that is down: connect() rejects with the server's code.
let down;
try {
  const failed = await connect(downUrl, {
    id: "down",
    allow: ["read_record"],
    transport: loopback,
  });
  down = `resolved with ${failed.toolkit.tools.length} tools`;
  await failed.close();
} catch (error) {
  const code = codeOf(error) ?? error?.code;
  down = `rejected ${code}`;
  if (code !== "transport_failed") down += ` ${JSON.stringify({ ...error })}`;
}
check(/^rejected transport_failed\b/.test(down), `a down server: ${down}`);

// 3. The installed bin, on this same runtime.
const bin = join(process.cwd(), "node_modules", ".bin", "sluice");
const runtimeArgs = globalThis.Deno ? ["run", "-A", bin] : [bin];
const help = spawnSync(process.execPath, [...runtimeArgs, "login", "--help"], {
  encoding: "utf8",
});
const helpText = `${help.stdout}${help.stderr}`;
check(
  help.status === 0 || help.status === 2,
  `sluice login --help exit ${help.status}: ${helpText}`,
);
check(/usage: sluice login/.test(helpText), `sluice login --help printed: ${helpText}`);
check(!/ERR_MODULE_NOT_FOUND|Cannot find/.test(helpText), `sluice login --help: ${helpText}`);

// 4. Optional packages, not installed here: each entry that needs one says what to install.
const refusal = async (name, attempt) => {
  const error = await attempt().then(() => undefined, (error) => error);
  check(error !== undefined, `${name}: no error without the package`);
  const code = codeOf(error) ?? error.code;
  check(code === "dependency_missing", `${name}: ${code} ${error.message}`);
  check(error.message.includes(`npm install ${name}@`), `${name}: ${error.message}`);
};
const scratch = mkdtempSync(join(tmpdir(), "sluice-consumer-"));
try {
  await refusal("ai", () => import("@sluice/mcp/ai-sdk"));
  await refusal("@modelcontextprotocol/server", () => import("@sluice/mcp/serve"));
  const { LibsqlApprovalStore, LibsqlTokenStore } = await import("@sluice/mcp/libsql");
  await refusal("libsql", () => LibsqlApprovalStore.open(join(scratch, "approvals.db")));
  await refusal(
    "@libsql/client",
    () => LibsqlTokenStore.open(join(scratch, "tokens.db"), { key: new Uint8Array(32) }),
  );
  const { PostgresApprovalStore } = await import("@sluice/mcp/postgres");
  await refusal("postgres", () => PostgresApprovalStore.open("postgres://sluice@127.0.0.1:1/x"));
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

// 5. DNS pinning from the installed package: a name takes the pinned path (Node: the undici
// dependency's Agent under the `node` condition; Deno and Bun: the CONNECT proxy).
const pinnedFetch = secureFetch({ dangerouslyAllowLoopback: true });
const report = pinnedFetch.describe();
check(report.dnsPinning === "enforced", `dnsPinning is ${report.dnsPinning}`);
const byName = new URL(url);
byName.hostname = "localhost";
const answer = await pinnedFetch(byName, { method: "GET" });
await answer.body?.cancel();
check(answer.status >= 200 && answer.status < 500, `pinned request by name: ${answer.status}`);

console.log(`consumer ok ${label} (down server: ${down}; resolver ${report.resolver})`);
