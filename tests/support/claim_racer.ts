/**
 * One of the racing processes: opens the shared approval database, prints `ready`, then for each
 * line `k` read from stdin claims approval k and prints `k claimed <start> <end>` or
 * `k <refusal code> <start> <end>` (wall-clock ms), or `k error <code>` if the store threw.
 * Exits at end of input.
 *
 * `deno run -A tests/support/claim_racer.ts <db> <plan.json>` where plan.json is
 * `{ "ids": string[], "expectation": ClaimExpectation }`.
 */
import { LibsqlApprovalStore } from "../../libsql.ts";
import type { ClaimExpectation } from "../../src/approvals/mod.ts";
import { answerLines } from "./stdin_lines.ts";

const [db, planPath] = Deno.args;
const plan = JSON.parse(await Deno.readTextFile(planPath)) as {
  ids: string[];
  expectation: ClaimExpectation;
};
const store = await LibsqlApprovalStore.open(db);
try {
  await answerLines(async (line) => {
    const k = Number(line);
    try {
      // Wall-clock start and end (ms, fractional) so the parent can see the claims overlap.
      const start = performance.timeOrigin + performance.now();
      const result = await store.claim(plan.ids[k], plan.expectation);
      const end = performance.timeOrigin + performance.now();
      return `${k} ${result.ok ? "claimed" : result.code} ${start} ${end}`;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return `${k} error ${String(code ?? (error as Error).name)}`;
    }
  });
} finally {
  await store.close();
}
