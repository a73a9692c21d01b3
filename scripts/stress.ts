/**
 * `deno task stress <name>`: the suites that prove a promise under load, run larger than the test
 * command runs them. Each prints its own figures; the task exits non-zero when one fails.
 *
 * - `contention [P,K,N]`: the store contention suite (tests/approvals/contention_test.ts) with P
 *   processes × K concurrent chains × N approvals (default 8,4,25) on the libSQL file and on
 *   PostgreSQL, printing lost and duplicated counts and approvals per second for each store.
 *
 * @module
 */

const SUITES: Readonly<Record<string, { test: string; filter: string; size: string }>> = {
  contention: {
    test: "tests/approvals/contention_test.ts",
    filter: "/^contention: (libSQL file|PostgreSQL|memory)/",
    size: "8,4,25",
  },
};

const [name, size] = Deno.args;
const suite = SUITES[name ?? ""];
if (suite === undefined) {
  console.error(`usage: deno task stress <${Object.keys(SUITES).join(" | ")}> [size]`);
  Deno.exit(2);
}
const status = await new Deno.Command(Deno.execPath(), {
  args: ["test", "-A", suite.test, "--filter", suite.filter],
  env: { SLUICE_CONTENTION_SIZE: size ?? suite.size },
  stdout: "inherit",
  stderr: "inherit",
}).spawn().status;
Deno.exit(status.code);
