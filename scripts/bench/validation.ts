/**
 * Validation benchmark: the longest event-loop stall while sluice admits a tool call's
 * arguments (the registration's local checks, `admit`: canonical form, detached copy, schema
 * validation; the gate runs the same), next to the v2 client's own validator
 * (`CfWorkerJsonSchemaValidator`, `@cfworker/json-schema` on the runtime's `RegExp`) validating
 * the same argument against the same schema, in the same process:
 *
 * (a) the largest schema the profile admits, `manyPatternsSchema` (64 KiB, 1,147
 *     `patternProperties`), and a 64 KiB argument of 3,245 members. Target: at most 20 ms.
 * (b) fastmcp's `create_event` (`fixtures/schemas/fastmcp@4.20.16.json`, a real schema whose
 *     attendees' emails are checked by zod's email pattern) and a 64 KiB argument of 1,243
 *     attendees. Target: at most 10 ms.
 *
 * Each round times {@link PER_ROUND} admissions and as many baseline validations,
 * interleaved one by one, under a 1 ms interval timer whose largest gap (less its 1 ms) is the
 * round's longest stall; the rows give the median round and the range over all rounds. The
 * tools are served by a low-level v2 SDK server over an in-memory transport and discovered by
 * sluice like any other (nothing is dispatched: admission runs before any request).
 *
 * `deno task bench validation` runs it through the registry; `deno run -A
 * scripts/bench/validation.ts` runs it alone.
 *
 * @module
 */
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { InMemoryTransport, type ListToolsResult, Server } from "@modelcontextprotocol/server";
import { admitCall } from "../../src/calls/admit.ts";
import { discoverTools, type JsonObject } from "../../mod.ts";
import {
  attendeesArgument,
  createEventSchema,
  manyPatternsArgument,
  manyPatternsSchema,
} from "../../fixtures/validation_inputs.ts";
import { benchClient, binding } from "./read_path.ts";
import { type Benchmark, type BenchRow, median } from "./types.ts";

const ROUNDS = 9;
/**
 * Admissions (and as many baseline validations) per round: fewer for (a), whose baseline takes
 * most of a second each.
 */
const PER_ROUND = { a: 3, b: 20 } as const;
const WARMUP = 3;

/** A low-level v2 server listing `tools` (calls are never made), connected to a v2 client. */
async function serve(tools: Record<string, JsonObject>) {
  const server = new Server({ name: "validation-bench", version: "1.0.0" }, {
    capabilities: { tools: {} },
  });
  server.setRequestHandler("tools/list", () =>
    ({
      tools: Object.entries(tools).map(([name, inputSchema]) => ({
        name,
        description: name,
        inputSchema,
      })),
    }) as ListToolsResult);
  server.setRequestHandler("tools/call", () => ({ content: [] }));
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  return await benchClient(clientTransport, () => server.close());
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 2));

/** The longest gaps of a 1 ms timer while each function runs once per step, interleaved. */
async function longestStalls(fns: readonly (() => unknown)[], steps: number): Promise<number[]> {
  const longest = fns.map(() => 0);
  let current = -1;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    if (current >= 0) longest[current] = Math.max(longest[current], now - last - 1);
    last = now;
  }, 1);
  try {
    for (let step = 0; step < steps; step++) {
      for (let index = 0; index < fns.length; index++) {
        // Alternate which goes first, so neither always follows the other's garbage.
        const which = step % 2 === 0 ? index : fns.length - 1 - index;
        await pause();
        current = which;
        last = performance.now();
        await fns[which]();
        // The gap still open when the call ended counts too.
        longest[which] = Math.max(longest[which], performance.now() - last - 1);
        current = -1;
      }
    }
  } finally {
    clearInterval(timer);
  }
  return longest.map((gap) => Math.max(0, gap));
}

/** One case's rows: the stall against the baseline's, and against the target. */
async function caseRows(
  label: string,
  admit: () => Promise<unknown>,
  baseline: () => unknown,
  targetMs: number,
  perRound: number,
): Promise<BenchRow[]> {
  for (let index = 0; index < WARMUP; index++) {
    await admit();
    baseline();
  }
  const subject: number[] = [];
  const reference: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const [ours, theirs] = await longestStalls([admit, baseline], perRound);
    subject.push(ours);
    reference.push(theirs);
  }
  const range = (values: number[]) =>
    `${Math.min(...values).toFixed(1)}-${Math.max(...values).toFixed(1)}`;
  const ratios = subject.map((value, index) => value / reference[index]);
  return [
    {
      kind: "comparison",
      subject: `${label}: sluice admit, longest stall (rounds ${range(subject)} ms)`,
      subjectMs: median(subject),
      baseline: `v2 client validator (rounds ${range(reference)} ms)`,
      baselineMs: median(reference),
      ratio: median(ratios),
      ratioRange: [Math.min(...ratios), Math.max(...ratios)],
    },
    {
      kind: "comparison",
      subject: `${label}: sluice admit, longest stall of all rounds`,
      subjectMs: Math.max(...subject),
      baseline: `the target, ${targetMs} ms`,
      baselineMs: targetMs,
      targetRatio: 1,
    },
  ];
}

/** Runs both cases and returns their rows. */
export async function runValidationBench(): Promise<BenchRow[]> {
  const schemas = { create_event: createEventSchema(), many_patterns: manyPatternsSchema() };
  const pair = await serve(schemas);
  try {
    const { calls } = await discoverTools(pair.client, "bench", {
      create_event: binding("create_event"),
      many_patterns: binding("many_patterns"),
    }, { monitor: pair.monitor });
    const planOf = (name: string) => calls.find((plan) => plan.entry.localName === name)!;
    const validators = new CfWorkerJsonSchemaValidator();
    const rows: BenchRow[] = [];
    for (
      const [name, argument, label, targetMs, expected, perRound] of [
        ["many_patterns", manyPatternsArgument(), "(a) largest schema", 20, false, PER_ROUND.a],
        ["create_event", attendeesArgument(), "(b) create_event", 10, true, PER_ROUND.b],
      ] as const
    ) {
      const plan = planOf(name);
      const theirs = validators.getValidator(structuredClone(schemas[name]));
      const admit = async () => {
        const admission = await admitCall(plan, argument, undefined, undefined);
        if (admission.ok !== expected) throw new Error(`${name}: unexpected admission`);
      };
      const members = Array.isArray(argument.attendees)
        ? argument.attendees.length
        : Object.keys(argument).length;
      rows.push(
        ...await caseRows(
          `${label}, ${members} members`,
          admit,
          () => theirs(argument),
          targetMs,
          perRound,
        ),
      );
    }
    return rows;
  } finally {
    await pair.close();
  }
}

/** The benchmark as registered in `scripts/bench.ts`. */
export const validationBenchmark: Benchmark = {
  name: "validation",
  describe: () =>
    `longest event-loop stall admitting 64 KiB arguments (a: the largest admitted schema, b: a ` +
    `real patterned one) vs the v2 client's validator, ${ROUNDS} rounds of ` +
    `${PER_ROUND.a} (a) and ${PER_ROUND.b} (b), interleaved`,
  run: runValidationBench,
};

if (import.meta.main) {
  for (const row of await runValidationBench()) console.log(JSON.stringify(row));
}
