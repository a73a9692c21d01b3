/**
 * Tool-poisoning screen benchmark: what it finds and what it costs.
 *
 * - Detection per category of the labeled set (`fixtures/poisoning/labeled_set.ts`: 300
 *   poisoned variants of real tools in 15 categories): a case counts when a finding of its class
 *   points where the payload is; and per class on the paraphrases of
 *   `fixtures/poisoning/held_out.ts`: a first round the co-occurrence rules were written with in
 *   view, and a second round held out.
 * - False positives on the clean set (every real tool of `fixtures/schemas/` and of the shared
 *   corpus when present, each screened with the other servers' names as a host allowing all of
 *   them would give): tools with a hidden-text finding, tools with a heuristic one.
 * - Time: `screenTools` over the 188-tool, 1 MiB real list
 *   (`fixtures/schemas/ms-365-mcp-server@0.155.0.json`) against `JSON.parse` of the same list's
 *   text (each round parses afresh and screens what it parsed), and against two discoveries of it from a loopback server process in the same rounds:
 *   the raw v2 client's (connect + `listTools()`) and sluice's (`connect()` + `report()`, every
 *   tool allowed, `screen: false`), per-round ratios; and `connect()` with the screen wired in
 *   (every class `"report"`) against `connect()` with `screen: false`, order alternated per
 *   round. The issue's target: the screen adds at most 10% to (sluice's) discovery.
 *
 * `deno task bench screen`
 *
 * @module
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import {
  connect,
  MAX_RESPONSE_BYTES,
  type ScreenableTool,
  type ScreenPolicy,
  screenTool,
  screenTools,
  TOOL_LIMIT_CEILINGS,
} from "../../mod.ts";
import { CATEGORIES, labeledSet, type PoisonedCase } from "../../fixtures/poisoning/labeled_set.ts";
import { firstParaphrases, heldOutSet } from "../../fixtures/poisoning/held_out.ts";
import { hostContext, realServers } from "../../fixtures/poisoning/clean_set.ts";
import { startConnectServer } from "./connect_server.ts";
import { type Benchmark, type BenchRow, median } from "./types.ts";

const LIST = new URL("../../fixtures/schemas/ms-365-mcp-server@0.155.0.json", import.meta.url);
const ROUNDS = 25;
const DISCOVERY_ROUNDS = 25;

/** Whether the screen finds a case: a finding of its class where its payload is. */
const detected = (entry: PoisonedCase) =>
  screenTool(entry.tool, entry.context).some((finding) =>
    finding.class === entry.expectClass && finding.pointer === entry.expectPointer
  );

function detectionRow(name: string, cases: readonly PoisonedCase[]): BenchRow {
  const found = cases.filter(detected).length;
  return {
    kind: "figure",
    name,
    value: (100 * found) / cases.length,
    unit: `% (${found}/${cases.length})`,
  };
}

function detectionRows(): BenchRow[] {
  const cases = labeledSet();
  return [
    ...CATEGORIES.map((category) =>
      detectionRow(
        `detected: ${category.id} (${category.class})`,
        cases.filter((entry) => entry.category === category.id),
      )
    ),
    ...([["first paraphrases (tuned on)", firstParaphrases()], [
      "held-out paraphrases",
      heldOutSet(),
    ]] as const).flatMap(([label, set]) =>
      (["markup", "shadowing", "exfiltration"] as const).map((cls) =>
        detectionRow(`detected, ${label}: ${cls}`, set.filter((entry) => entry.expectClass === cls))
      )
    ),
  ];
}

function falsePositiveRows(): BenchRow[] {
  const servers = realServers();
  let tools = 0;
  let hidden = 0;
  let heuristic = 0;
  for (const server of servers) {
    for (const findings of screenTools(server.tools, hostContext(server, servers))) {
      tools++;
      if (findings.some((finding) => finding.class === "hidden")) hidden++;
      if (findings.some((finding) => finding.class !== "hidden")) heuristic++;
    }
  }
  return [
    {
      kind: "figure",
      name: `real tools with a hidden-text finding (target 0), of ${tools}`,
      value: hidden,
      unit: "tools",
    },
    {
      kind: "figure",
      name: `real tools with a heuristic finding (target <= 2%), of ${tools}`,
      value: (100 * heuristic) / tools,
      unit: `% (${heuristic} tools)`,
    },
  ];
}

/** A comparison row from per-round samples: medians, and the median and range of each round's ratio. */
function compare(
  subject: string,
  subjectMs: readonly number[],
  baseline: string,
  baselineMs: readonly number[],
  targetRatio?: number,
): BenchRow {
  const each = subjectMs.map((value, index) => value / baselineMs[index]);
  return {
    kind: "comparison",
    subject,
    subjectMs: median(subjectMs),
    baseline,
    baselineMs: median(baselineMs),
    ratio: median(each),
    ratioRange: [Math.min(...each), Math.max(...each)],
    ...(targetRatio === undefined ? {} : { targetRatio }),
  };
}

async function timeRows(): Promise<BenchRow[]> {
  const text = await Deno.readTextFile(LIST);
  const tools = (JSON.parse(text) as { tools: ScreenableTool[] }).tools;
  // A host with two other servers: their names are looked for in every string.
  const context = {
    otherToolNames: ["send_email", "read_file", "write_file", "search_issues", "create_pr"],
    serverNames: ["github", "filesystem"],
  };
  // Each round parses the list afresh and screens what it parsed, timed apart: the screen
  // meets new objects and strings, as after a discovery.
  const screened: number[] = [];
  const parsed: number[] = [];
  for (let round = -3; round < ROUNDS; round++) {
    const start = performance.now();
    const fresh = (JSON.parse(text) as { tools: ScreenableTool[] }).tools;
    const middle = performance.now();
    screenTools(fresh, context);
    const end = performance.now();
    if (round < 0) continue; // warm-up
    parsed.push(middle - start);
    screened.push(end - middle);
  }

  const file = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(file, JSON.stringify({ ms365: tools }));
  const server = await startConnectServer(file);
  try {
    const url = new URL(`${server.origin}/lists/ms365`);
    const discover = async () => {
      const client = new Client({ name: "screen-bench", version: "0.0.0" }, {
        jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
      });
      await client.connect(new StreamableHTTPClientTransport(url));
      const result = await client.listTools();
      await client.close();
      if (result.tools.length !== tools.length) throw new Error("listTools missed tools");
      return result.tools;
    };
    // sluice's own discovery of the list, every tool allowed (the list is over the default
    // catalog budget, raised explicitly as a host must).
    const names = tools.map((tool) => tool.name);
    const sluiceDiscover = async (screen: ScreenPolicy | false = false) => {
      const connection = await connect(url.href, {
        id: "screen-bench",
        allow: names,
        screen,
        limits: {
          maxTools: TOOL_LIMIT_CEILINGS.maxTools,
          maxCatalogBytes: TOOL_LIMIT_CEILINGS.maxCatalogBytes,
        },
        transport: { dangerouslyAllowLoopback: true, maxResponseBytes: MAX_RESPONSE_BYTES },
      });
      connection.report();
      await connection.close();
    };
    // Each round: the raw client's discovery, the screen of what it returned, and sluice's
    // discovery, each timed apart.
    const discoveryMs: number[] = [];
    const screenMs: number[] = [];
    const sluiceMs: number[] = [];
    // connect() with the screen wired in (every class reported, so every tool stays and is
    // read) against connect() with `screen: false`, in the same rounds, order alternated.
    const screenedMs: number[] = [];
    const unscreenedMs: number[] = [];
    const REPORT_ALL: ScreenPolicy = {
      hidden: "report",
      markup: "report",
      shadowing: "report",
      exfiltration: "report",
    };
    const timed = async (work: () => Promise<unknown>) => {
      const start = performance.now();
      await work();
      return performance.now() - start;
    };
    for (let round = -2; round < DISCOVERY_ROUNDS; round++) {
      const start = performance.now();
      const listed = await discover();
      const middle = performance.now();
      screenTools(listed as ScreenableTool[], context);
      const end = performance.now();
      await sluiceDiscover();
      const done = performance.now();
      const onFirst = round % 2 === 0;
      const first = await timed(() => sluiceDiscover(onFirst ? REPORT_ALL : false));
      const second = await timed(() => sluiceDiscover(onFirst ? false : REPORT_ALL));
      if (round < 0) continue; // warm-up
      discoveryMs.push(middle - start);
      screenMs.push(end - middle);
      sluiceMs.push(done - end);
      screenedMs.push(onFirst ? first : second);
      unscreenedMs.push(onFirst ? second : first);
    }
    const label = `screenTools, ms-365 (${tools.length} tools, ${
      (text.length / 1024 / 1024).toFixed(2)
    } MiB)`;
    return [
      compare(label, screened, "JSON.parse of the list", parsed),
      compare(
        `${label}, after each discovery`,
        screenMs,
        "raw connect + listTools() of it",
        discoveryMs,
      ),
      compare(
        `${label}, after each discovery`,
        screenMs,
        "sluice connect() + report(), all allowed",
        sluiceMs,
        0.1,
      ),
      compare(
        `connect() + report() of ms-365, all allowed, screen on (every class "report")`,
        screenedMs,
        "the same with screen: false",
        unscreenedMs,
        1.1,
      ),
    ];
  } finally {
    await server.close();
    await Deno.remove(file);
  }
}

/** The `screen` benchmark, registered in `scripts/bench.ts`. */
export const screenBenchmark: Benchmark = {
  name: "screen",
  describe: () =>
    `tool-poisoning screen: detection per category of the labeled set, false positives on the ` +
    `real tools, and screenTools over the 188-tool ms-365 list vs JSON.parse (${ROUNDS} rounds) ` +
    `and vs the raw client's and connect()'s discovery (${DISCOVERY_ROUNDS} rounds)`,
  run: async () => [...detectionRows(), ...falsePositiveRows(), ...await timeRows()],
};
