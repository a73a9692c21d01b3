/**
 * The runtime smoke entry: bundled by `scripts/smoke/run.ts` and run unchanged under Deno, Bun
 * and workerd. It exercises the core (identity and the schema profile) and returns a
 * plain JSON result that must be identical on every runtime. `smoke()` is the entry for Deno and
 * Bun; the default export is the Worker's fetch handler.
 *
 * @module
 */
// The two core modules, not mod.ts: the smoke proves identity and the profile, and mod.ts also
// carries the MCP client, which has its own Worker bundle test.
import { canonicalize, digest, type JsonValue, JsonValueError } from "../../src/identity/mod.ts";
import { checkSchema, compileSchema } from "../../src/schema/mod.ts";

/** What one runtime reports: `checks` must match across runtimes, `runtime` describes it. */
export interface SmokeResult {
  /** Facts about the runtime; not compared. */
  runtime: {
    /** Whether `new Function(...)` works here; workerd must say `forbidden`. */
    codeGeneration: "allowed" | "forbidden";
    /** The error name when a check threw unexpectedly, else null. */
    unexpectedError: string | null;
  };
  /** Results that must be byte-identical on every runtime. */
  checks: Record<string, JsonValue>;
}

/** The RFC 8785 section 3.2.2 sample object, as a value. */
const rfcSample = {
  numbers: [333333333.33333329, 1e30, 4.5, 2e-3, 1e-27],
  string: '\u20ac$\u000f\nA\'B"\\\\"/',
  literals: [null, true, false],
};

/** How canonicalize refuses `value`: `code@path`, or `accepted`. */
function refusal(value: unknown): string {
  try {
    canonicalize(value);
    return "accepted";
  } catch (error) {
    if (error instanceof JsonValueError) {
      // Long pointers (the deep array's) are summarized to keep the report readable.
      const path = error.path.length > 40
        ? `${error.path.slice(0, 12)}...(${error.path.length} chars)`
        : error.path;
      return `${error.code}@${path}`;
    }
    // Anything else (a RangeError from a stack overflow, say) is a failure of the bound.
    return `unexpected ${(error as Error).name}`;
  }
}

function probeCodeGeneration(): "allowed" | "forbidden" {
  try {
    // Only a probe of the runtime: the core itself never generates code.
    return new Function("return 1")() === 1 ? "allowed" : "forbidden";
  } catch {
    return "forbidden";
  }
}

async function identityChecks(): Promise<Record<string, JsonValue>> {
  let deep: unknown[] = [];
  for (let level = 1; level < 100_000; level++) deep = [deep];
  const sparse: unknown[] = [1];
  sparse[2] = 3;
  return {
    rfcSampleCanonical: canonicalize(rfcSample),
    rfcSampleDigest: await digest(rfcSample),
    unicodeKeysCanonical: canonicalize({ "\u20ac": 1, "\r": 2, "\ufb33": 3, "\ud83d\ude00": 4 }),
    unicodeDigest: await digest({ "\u00f6": "\ud83d\ude00", n: [-0, 5e-324, 1e21] }),
    // Over the script-hash threshold: the crypto.subtle path must agree everywhere too.
    largeDigest: await digest({ text: "\u00e9x".repeat(20_000) }),
    refusals: [
      refusal({ a: undefined }),
      refusal([sparse]),
      refusal({ f: () => 1 }),
      refusal({ n: 1n }),
      refusal([NaN]),
      refusal({ s: "\ud800" }),
      refusal({ d: new Date(0) }),
      refusal(new Map()),
      refusal(deep),
      refusal("\u20ac".repeat(4)),
    ],
    bytesBound: (() => {
      try {
        canonicalize("\u20ac".repeat(4), { maxBytes: 13 });
        return "accepted";
      } catch (error) {
        return error instanceof JsonValueError ? error.code : "unexpected";
      }
    })(),
  };
}

/** A tool input schema in the profile, with a local `$ref` into `$defs` and `pattern`s. */
const sampleSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    owner: { $ref: "#/$defs/name" },
    repo: { $ref: "#/$defs/name" },
    labels: {
      type: "array",
      items: { type: "string", pattern: "^[a-z][a-z0-9-]{0,20}$" },
      maxItems: 5,
    },
    count: { type: "integer", minimum: 1, maximum: 100 },
  },
  required: ["owner", "repo"],
  additionalProperties: false,
  $defs: {
    name: { type: "string", pattern: "^[A-Za-z0-9_.-]+$", minLength: 1, maxLength: 100 },
  },
};

async function schemaChecks(): Promise<Record<string, JsonValue>> {
  const checked = checkSchema(sampleSchema);
  const validate = compileSchema(sampleSchema);
  const good = { owner: "denoland", repo: "deno", labels: ["bug", "good-first-issue"], count: 3 };
  // Each member breaks one rule: pattern through $ref, pattern in items, maximum, unknown key.
  const bad = { owner: "deno land", repo: "deno", labels: ["Bug"], count: 101, extra: true };
  const outcome = (value: unknown): JsonValue => {
    const result = validate(value);
    if (result.valid) return "valid";
    return result.errors
      .map((error) => `${error.code} ${error.keyword} ${error.path}`)
      .toSorted();
  };
  const rejected = checkSchema({ type: "object", "x-extension": true });
  // Patterns run on RE2 through the validator's stand-in `RegExp` on every runtime: a
  // backtracking engine would not finish these; the global is the runtime's own afterwards.
  const redos = compileSchema({
    type: "object",
    properties: { a: { type: "string", pattern: "^(a|aa)+$" } },
    patternProperties: { "^(\\w+\\s?)+!$": { type: "null" } },
  });
  const globalBefore = globalThis.RegExp;
  const linear = [
    redos({ a: "a".repeat(20_000) + "!" }).valid,
    redos({ ["a".repeat(20_000) + "!"]: 0 }).valid,
    redos({ a: "a".repeat(20_000) }).valid,
    globalThis.RegExp === globalBefore,
  ];
  return {
    checked: checked.ok ? "ok" : checked.problems.map((problem) => problem.code),
    schemaDigest: await digest(sampleSchema),
    good: outcome(good),
    bad: outcome(bad),
    missingRequired: outcome({ owner: "x" }),
    linearPatterns: linear,
    rejectedSchema: rejected.ok
      ? "ok"
      : rejected.problems.map((problem) => `${problem.code} ${problem.keyword} ${problem.path}`),
  };
}

/** Runs every check and returns the result; never throws. */
export async function smoke(): Promise<SmokeResult> {
  const result: SmokeResult = {
    runtime: { codeGeneration: probeCodeGeneration(), unexpectedError: null },
    checks: {},
  };
  try {
    result.checks.identity = await identityChecks();
    result.checks.schema = await schemaChecks();
  } catch (error) {
    const name = (error as Error)?.name ?? "unknown";
    result.runtime.unexpectedError = `${name}: ${(error as Error)?.message ?? ""}`;
  }
  return result;
}

/** The Worker: every request answers with the smoke result as JSON. */
export default {
  async fetch(): Promise<Response> {
    return Response.json(await smoke());
  },
};
