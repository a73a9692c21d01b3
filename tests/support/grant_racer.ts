/**
 * One of the processes racing for one grant's uses: opens the shared approval store (a libSQL
 * path or a `postgres:` URL), prints `ready`, then for each line `k` read from stdin asks this
 * process's grant of round k to approve each of its approvals of round k, all at once, and
 * prints `k <json results>`. Exits at end of input.
 *
 * `deno run -A tests/support/grant_racer.ts <store> <plan.json> <index>` where plan.json is
 * `{ "rounds": { "grantIds": string[], "ids": string[][] }[] }` (`grantIds[index]` and `ids[index]`:
 * this process's grant and calls).
 */
import { LibsqlApprovalStore } from "../../libsql.ts";
import { PostgresApprovalStore } from "../../postgres.ts";
import type { ApprovalStore } from "../../src/approvals/mod.ts";
import { answerLines } from "./stdin_lines.ts";

const [where, planPath, index] = Deno.args;
const plan = JSON.parse(await Deno.readTextFile(planPath)) as {
  rounds: { grantIds: string[]; ids: string[][] }[];
};
const store: ApprovalStore = where.startsWith("postgres:")
  ? await PostgresApprovalStore.open(where)
  : await LibsqlApprovalStore.open(where);
try {
  await answerLines(async (line) => {
    const k = Number(line);
    const round = plan.rounds[k];
    const results = await Promise.all(
      round.ids[Number(index)].map((id) =>
        store.approveByGrant(id, round.grantIds[Number(index)]).then(
          (result) => result.ok ? "approved" : result.code,
          (error) => `error ${(error as { code?: string }).code ?? (error as Error).name}`,
        )
      ),
    );
    return `${k} ${JSON.stringify(results)}`;
  });
} finally {
  await store.close();
}
