/**
 * Identity benchmark: canonicalize + digest of a 1 MiB catalog-like value against
 * `JSON.stringify` + SHA-256 of the same value. Target: at most 3× the baseline.
 *
 * @module
 */
import { canonicalize, digest, type JsonObject, type JsonValue } from "../../mod.ts";
import { type Benchmark, timeInterleaved } from "./types.ts";

const encoder = new TextEncoder();

/** mulberry32: a tiny seeded PRNG, so the value is the same on every run and runtime. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

const words = [
  "read",
  "write",
  "file",
  "directory",
  "search",
  "issue",
  "pull",
  "request",
  "comment",
  "repository",
  "branch",
  "commit",
  "query",
  "table",
  "row",
  "entity",
  "relation",
  "observation",
  "path",
  "content",
  "encoding",
  "limit",
  "offset",
  "cursor",
  "filter",
  "sort",
  "owner",
  "label",
  "état",
  "größe",
  "名前",
  "説明",
  "emoji 🚀",
  'quote "x"',
  "tab\there",
  "line\nbreak",
];

/**
 * A deterministic catalog-like value of at least `minBytes` bytes of JSON: a `tools/list`
 * result with names, descriptions, nested input schemas, annotations and output schemas.
 */
export function catalogValue(minBytes = 1024 * 1024, seed = 2026): JsonObject {
  const random = seededRandom(seed);
  const pick = () => words[Math.floor(random() * words.length)];
  const sentence = (count: number) => Array.from({ length: count }, pick).join(" ");
  const property = (depth: number): JsonObject => {
    const kind = Math.floor(random() * (depth > 2 ? 4 : 6));
    const description = sentence(4 + Math.floor(random() * 10));
    switch (kind) {
      case 0:
        return { type: "string", description, minLength: 1, maxLength: 4096 };
      case 1:
        return { type: "integer", description, minimum: 0, maximum: 10_000, default: 100 };
      case 2:
        return { type: "number", description, exclusiveMinimum: 0, multipleOf: 0.25 };
      case 3:
        return { type: "string", enum: [pick(), pick(), pick()], description };
      case 4:
        return { type: "array", description, items: property(depth + 1), maxItems: 50 };
      default:
        return objectSchema(depth + 1, description);
    }
  };
  const objectSchema = (depth: number, description?: string): JsonObject => {
    const properties: JsonObject = {};
    const count = 2 + Math.floor(random() * 6);
    for (let index = 0; index < count; index++) {
      properties[`${pick().replace(/\W/g, "_")}_${index}`] = property(depth);
    }
    const keys = Object.keys(properties);
    const schema: JsonObject = {
      type: "object",
      properties,
      required: keys.slice(0, 1 + Math.floor(random() * keys.length)),
      additionalProperties: false,
    };
    if (description !== undefined) schema.description = description;
    return schema;
  };
  const tools: JsonValue[] = [];
  const value: JsonObject = { tools, nextCursor: null };
  let size = 0;
  for (let index = 0; size < minBytes; index++) {
    const tool: JsonObject = {
      name: `tool_${index}_${pick().replace(/\W/g, "_")}`,
      title: sentence(3),
      description: sentence(20 + Math.floor(random() * 40)),
      inputSchema: { $schema: "https://json-schema.org/draft/2020-12/schema", ...objectSchema(0) },
      annotations: {
        readOnlyHint: random() < 0.5,
        destructiveHint: random() < 0.2,
        idempotentHint: random() < 0.5,
        openWorldHint: false,
      },
    };
    if (random() < 0.5) tool.outputSchema = objectSchema(0);
    tools.push(tool);
    // Cheap running size: re-serialize only the new tool.
    size += encoder.encode(JSON.stringify(tool)).length + 1;
  }
  return value;
}

async function stringifyAndHash(value: JsonValue): Promise<ArrayBuffer> {
  return await crypto.subtle.digest("SHA-256", encoder.encode(JSON.stringify(value)));
}

const value = catalogValue();
const ROUNDS = 50;
const WARMUP = 10;

/** The identity benchmark, registered in `scripts/bench.ts`. */
export const identityBenchmark: Benchmark = {
  name: "identity",
  describe() {
    const bytes = encoder.encode(canonicalize(value)).length;
    const tools = (value.tools as JsonValue[]).length;
    return `catalog-like value: ${tools} tools, ${(bytes / 1024 / 1024).toFixed(2)} MiB ` +
      `canonical; median of ${ROUNDS} rounds after ${WARMUP} warm-up rounds`;
  },
  async run() {
    const [digestMs, canonicalMs, baselineMs] = await timeInterleaved([
      () => digest(value),
      () => canonicalize(value),
      () => stringifyAndHash(value),
    ], { rounds: ROUNDS, warmup: WARMUP });
    const baseline = "JSON.stringify + SHA-256";
    return [
      {
        kind: "comparison",
        subject: "digest(value)",
        subjectMs: digestMs,
        baseline,
        baselineMs,
        targetRatio: 3,
      },
      {
        kind: "comparison",
        subject: "canonicalize(value)",
        subjectMs: canonicalMs,
        baseline,
        baselineMs,
      },
    ];
  },
};
