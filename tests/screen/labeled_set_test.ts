/**
 * The figures on the labeled set and the clean set: hidden and deceptive text at least
 * 99% detected with no real tool flagged; each heuristic class at least 85% detected with at
 * most 2% of real tools flagged. Counts, not timings.
 */
import assert from "node:assert/strict";
import { type ScreenClass, screenTool, screenTools } from "../../mod.ts";
import { CATEGORIES, labeledSet } from "../../fixtures/poisoning/labeled_set.ts";
import { hostContext, realServers } from "../../fixtures/poisoning/clean_set.ts";

const HEURISTIC: readonly ScreenClass[] = ["markup", "shadowing", "exfiltration"];

Deno.test("labeled set: at least 200 poisoned variants of real tools in at least 8 categories, each citing its source", () => {
  const cases = labeledSet();
  assert.ok(cases.length >= 200, `${cases.length} cases`);
  assert.ok(CATEGORIES.length >= 8);
  for (const category of CATEGORIES) {
    assert.ok(category.source.length > 20, category.id);
    assert.ok(cases.some((entry) => entry.category === category.id), category.id);
  }
  // Deterministic: the same set every time.
  assert.deepEqual(JSON.stringify(labeledSet()), JSON.stringify(cases));
});

Deno.test("labeled set: hidden text >= 99% detected at its pointer, Tag messages decoded, imitated names named", () => {
  const cases = labeledSet().filter((entry) => entry.expectClass === "hidden");
  let detected = 0;
  const missed: string[] = [];
  for (const entry of cases) {
    const findings = screenTool(entry.tool, entry.context);
    const hit = findings.find((finding) =>
      finding.class === "hidden" && finding.pointer === entry.expectPointer
    );
    if (hit === undefined || hit.class !== "hidden") {
      missed.push(entry.id);
      continue;
    }
    detected++;
    if (entry.expectDecoded !== undefined) assert.equal(hit.decoded, entry.expectDecoded, entry.id);
    if (entry.expectImitates !== undefined) assert.equal(hit.imitates, entry.expectImitates);
  }
  assert.ok(cases.length >= 100, `${cases.length} hidden cases`);
  assert.ok(detected / cases.length >= 0.99, `missed ${missed.join(", ")}`);
});

Deno.test("labeled set: each heuristic class >= 85% detected at its pointer", () => {
  const cases = labeledSet();
  for (const cls of HEURISTIC) {
    const own = cases.filter((entry) => entry.expectClass === cls);
    const detected = own.filter((entry) =>
      screenTool(entry.tool, entry.context).some((finding) =>
        finding.class === cls && finding.pointer === entry.expectPointer
      )
    );
    assert.ok(own.length >= 40, `${cls}: ${own.length} cases`);
    assert.ok(detected.length / own.length >= 0.85, `${cls}: ${detected.length}/${own.length}`);
  }
});

Deno.test("clean set: no real tool has hidden text; at most 2% have a heuristic finding", () => {
  const servers = realServers();
  let tools = 0;
  const hidden: string[] = [];
  const heuristic: string[] = [];
  for (const server of servers) {
    const results = screenTools(server.tools, hostContext(server, servers));
    results.forEach((findings, index) => {
      tools++;
      const name = `${server.id}/${server.tools[index].name}`;
      if (findings.some((finding) => finding.class === "hidden")) hidden.push(name);
      if (findings.some((finding) => finding.class !== "hidden")) heuristic.push(name);
    });
  }
  // The repository's captured lists alone hold 384 distinct tools; the corpus adds 293.
  assert.ok(tools >= 384, `${tools} real tools`);
  assert.deepEqual(hidden, []);
  assert.ok(heuristic.length / tools <= 0.02, `${heuristic.length}/${tools}: ${heuristic}`);
});
