/**
 * One process of the contention suite: opens the store a URL names (a libSQL file or a
 * `postgres://` database), waits for the shared start instant, runs its part of the plan and
 * prints one JSON line: its {@link ProcessReport}.
 *
 * `deno run -A tests/support/contention_child.ts <store url> <plan.json> <process> <startAt ms>`
 *
 * @module
 */
import { openStore } from "./open_store.ts";
import { type ContentionPlan, runProcess, type SharedIds } from "./contention.ts";

const [url, planPath, process, startAt] = Deno.args;
const { plan, shared } = JSON.parse(await Deno.readTextFile(planPath)) as {
  plan: ContentionPlan;
  shared: SharedIds;
};
const store = await openStore(url);
try {
  const wait = Number(startAt) - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const report = await runProcess(store, plan, shared, Number(process));
  console.log(JSON.stringify(report));
} finally {
  await store.close();
}
