/**
 * A separate process that opens the approval database and does one thing, printing JSON.
 * `deno run -A tests/support/approvals_child.ts <db> approve <id> <by>`
 * `deno run -A tests/support/approvals_child.ts <db> claim <id> <expectation-json>`
 * `deno run -A tests/support/approvals_child.ts <db> get <id>`
 */
import { LibsqlApprovalStore } from "../../libsql.ts";
import type { ClaimExpectation } from "../../src/approvals/mod.ts";

const [db, op, id, extra] = Deno.args;
const store = await LibsqlApprovalStore.open(db);
try {
  let result: unknown;
  if (op === "approve") result = await store.approve(id, { by: extra });
  else if (op === "claim") result = await store.claim(id, JSON.parse(extra) as ClaimExpectation);
  else if (op === "get") result = await store.get(id);
  else throw new Error(`unknown op ${op}`);
  console.log(JSON.stringify(result));
} finally {
  await store.close();
}
