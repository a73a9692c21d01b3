// The npm consumer program with a durable store: run unchanged by Node 20, Node 22 and Bun inside
// a fresh project where the packed tarball and the libSQL drivers (optional peers) are installed
// (scripts/check_npm.ts copies it there). It uses sluice only through the package's public
// entries, as a user would:
//   <runtime> consumer_stores.mjs <MCP url> <approval db file> <server ledger file> <run label>
// connect() to the loopback write fixture, export the tools for a provider, call the read tool,
// call the write (it waits in a LibsqlApprovalStore on a temp file), approve it with the
// packaged `sluice` CLI in another process of the same runtime, resume, and check the server's
// own ledger. Prints "consumer ok <label>" and exits 0, or throws.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { connect } from "@sluice/mcp";
import { LibsqlApprovalStore } from "@sluice/mcp/libsql";

const [url, dbPath, ledgerPath, label] = process.argv.slice(2);
const key = `consumer-${label}`;
const VALUE = "sluice-synthetic-v1";

function check(condition, what) {
  if (!condition) throw new Error(`consumer ${label}: check failed: ${what}`);
}

/** The installed package's CLI: the `sluice` the package manager linked into `.bin`. */
const cliPath = () => join(process.cwd(), "node_modules", ".bin", "sluice");

/** Runs the packaged CLI on this same runtime. */
const sluice = (...args) => spawnSync(process.execPath, [cliPath(), ...args], { encoding: "utf8" });

const version = sluice("--version");
check(version.status === 0 && /^sluice \d+\.\d+\.\d+\n$/.test(version.stdout), "sluice --version");
const inspected = sluice("inspect", url, "--allow-loopback", "--json");
check(inspected.status === 0, `sluice inspect exit ${inspected.status}: ${inspected.stderr}`);
const report = JSON.parse(inspected.stdout);
check(
  report.tools.map((tool) => tool.name).sort().join() === "read_record,write_record",
  "inspect",
);
check(report.fitting === 2 && /^sha256:/.test(report.catalogDigest), "inspect: both fit");

const store = await LibsqlApprovalStore.open(dbPath);
const connection = await connect(url, {
  id: "records",
  allow: ["read_record", "write_record"],
  preApproved: ["read_record"],
  store,
  transport: { dangerouslyAllowLoopback: true },
});
try {
  const tools = connection.toolkit.toAnthropicTools().map((tool) => tool.name).sort();
  check(tools.join(",") === "records__read_record,records__write_record", `tools ${tools}`);

  const before = await connection.toolkit.call("records__read_record", { key });
  check(before.errorCode === undefined && before.structured?.found === false, "read before");

  const pending = await connection.toolkit.call("records__write_record", { key, value: VALUE });
  check(pending.errorCode === "approval_pending" && pending.approvalId, "write waits");
  check(pending.effect === "not_started", "nothing was sent yet");

  // A person approves from another process, with the packaged CLI on this same runtime.
  const approved = sluice(
    "approvals",
    "approve",
    pending.approvalId,
    "--by",
    `reviewer-${label}`,
    "--db",
    dbPath,
    "--json",
  );
  check(
    approved.status === 0,
    `sluice approvals approve exit ${approved.status}: ${approved.stderr}`,
  );
  check(JSON.parse(approved.stdout).record.state === "approved", "the CLI printed the approval");

  const done = await connection.toolkit.resume(pending.approvalId);
  check(done.errorCode === undefined && done.effect === "committed", `resume: ${done.errorCode}`);
  const again = await connection.toolkit.resume(pending.approvalId);
  check(again.errorCode === "approval_already_claimed", "a second resume does not run it");

  const after = await connection.toolkit.call("records__read_record", { key });
  check(after.structured?.found === true && after.structured?.value === VALUE, "read after");

  // The server's own ledger, not sluice's records: exactly one write of this key.
  const ledger = readFileSync(ledgerPath, "utf8").trim().split("\n").map((line) =>
    JSON.parse(line)
  );
  const written = ledger.filter((entry) => entry.event === "written" && entry.key === key);
  check(written.length === 1, `the server wrote ${key} ${written.length} times`);
} finally {
  await connection.close();
  await store.close();
}
console.log(`consumer ok ${label}`);
