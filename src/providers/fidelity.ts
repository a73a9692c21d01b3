/**
 * The fidelity table: for each provider mode, what happens to every keyword the schema profile
 * admits, the value rules some keywords carry, the name rule and the request-level limits.
 * One table drives every export (`translate.ts` reads it); the providers' documented rules
 * are written here and nowhere else.
 *
 * Sources: OpenAI "Structured Outputs: supported schemas" and function calling guides
 * (strict mode); Anthropic "Structured outputs: JSON Schema limitations" and "Strict tool use";
 * Google "Function calling" and "Structured output: JSON Schema support" (the
 * `parametersJsonSchema` field).
 *
 * @module
 */
import { KEYWORDS } from "../schema/keywords.ts";
import type { Provider } from "./types.ts";

/**
 * The rule sets: a provider's plain mode or its strict mode.
 *
 * @category Agent developers: providers
 */
export type FidelityMode =
  | "openai"
  | "openai-strict"
  | "anthropic"
  | "anthropic-strict"
  | "gemini";

/**
 * What a mode does with one keyword.
 *
 * @category Agent developers: providers
 */
export type KeywordFidelity =
  /** Sent as it is: the provider applies it (strict) or shows it to the model (plain). */
  | "kept"
  /** A pure annotation the provider rejects: dropped (meaning unchanged). */
  | "dropped"
  /** Accepted but not applied to what the model generates: the tool is lossy. */
  | "ignored"
  /** The provider refuses the schema: the tool is refused. */
  | "rejected";

/**
 * Value rules a mode attaches to a keyword, checked by the translator.
 *
 * @category Agent developers: providers
 */
export interface ModeRules {
  /** Every object must say `additionalProperties: false`. */
  readonly closedObjects: boolean;
  /** Every property must be required (optional ones become required and nullable). */
  readonly allRequired: boolean;
  /** Every subschema must say what it accepts (`type`, `anyOf`, `$ref`, `enum` or `const`). */
  readonly typed: boolean;
  /** `$ref` cycles are refused. */
  readonly noRecursion: boolean;
  /** An array schema must say `items` (the API refuses one without). */
  readonly arrayItems: boolean;
  /** Definitions no `$ref` reaches are dropped before the rules are applied. */
  readonly dropUnusedDefinitions: boolean;
  /**
   * `$ref` takes no sibling keywords: annotations beside it are dropped, anything else is
   * refused.
   */
  readonly refAlone?: boolean;
  /** `required` may name only listed properties. */
  readonly requiredListed?: boolean;
  /** `format` values the mode keeps; other values are dropped (annotations). All when absent. */
  readonly formats?: ReadonlySet<string>;
  /** `enum` members must be these JSON types; otherwise the keyword gets `enumOther`. */
  readonly enumTypes?: ReadonlySet<string>;
  /** What an `enum` with other members gets. */
  readonly enumOther?: KeywordFidelity;
  /** Highest `minItems` kept; larger values are rejected. */
  readonly maxMinItems?: number;
  /** A `pattern` matching this is rejected (regex features the provider does not compile). */
  readonly patternRejected?: RegExp;
  /** Deepest object nesting. */
  readonly maxObjectDepth?: number;
  /** Most object properties in one schema. */
  readonly maxProperties?: number;
  /** Most `enum` values in one schema, all enums together. */
  readonly maxEnumValues?: number;
  /** Most characters of property names, definition names, `enum` and `const` strings. */
  readonly maxSchemaText?: number;
  /** Most optional properties in one tool (and, summed, per request). */
  readonly maxOptional?: number;
  /** Most properties with a union type in one tool (and, summed, per request). */
  readonly maxUnions?: number;
}

/**
 * One mode: its keyword table, value rules, name rule and request limits.
 *
 * @category Agent developers: providers
 */
export interface FidelityProfile {
  /** Keyword → what happens to it. A keyword not listed is rejected. */
  readonly keywords: Readonly<Record<string, KeywordFidelity>>;
  /** Value rules. */
  readonly rules: ModeRules;
  /** The provider's tool name rule. */
  readonly name: RegExp;
  /** Most tools per request, when documented. */
  readonly maxTools?: number;
  /** Most strict tools per request, when documented. */
  readonly maxStrictTools?: number;
}

/** Every profile keyword kept, then the listed overrides. */
function table(
  overrides: Partial<Record<string, KeywordFidelity>>,
): Readonly<Record<string, KeywordFidelity>> {
  const out: Record<string, KeywordFidelity> = {};
  for (const [keyword, rule] of Object.entries(KEYWORDS)) if (rule.admitted) out[keyword] = "kept";
  for (const [keyword, rule] of Object.entries(overrides)) out[keyword] = rule!;
  return Object.freeze(out);
}

const every = (keywords: readonly string[], rule: KeywordFidelity) =>
  Object.fromEntries(keywords.map((keyword) => [keyword, rule]));

/** Annotations a strict grammar compiler does not take; `$schema` was settled by the profile. */
const STRICT_DROPPED = every(
  ["$schema", "$comment", "examples", "deprecated", "readOnly", "writeOnly", "contentEncoding"]
    .concat(["contentMediaType"]),
  "dropped",
);

/**
 * 2020-12 keywords the profile admits (proven by the JSON-Schema-Test-Suite) that neither
 * strict grammar documents: refused there, and reported as ignored by Gemini.
 */
const APPLICATORS_2020_12 = [
  "$anchor",
  "if",
  "then",
  "else",
  "dependentRequired",
  "dependentSchemas",
  "contains",
  "minContains",
  "maxContains",
  "unevaluatedItems",
  "unevaluatedProperties",
  "patternProperties",
  "minProperties",
  "maxProperties",
];

const PLAIN_RULES: ModeRules = Object.freeze({
  closedObjects: false,
  allRequired: false,
  typed: false,
  noRecursion: false,
  arrayItems: false,
  dropUnusedDefinitions: false,
});

/** `format` values both strict modes document (Anthropic adds `uri`). */
const FORMATS = [
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uuid",
];

/** OpenAI and Anthropic function names. */
const NAME_64 = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The table.
 *
 * @category Agent developers: providers
 */
export const FIDELITY: Readonly<Record<FidelityMode, FidelityProfile>> = Object.freeze({
  // Plain function calling: the schema is the model's guidance; sluice validates every call.
  openai: {
    keywords: table({}),
    rules: Object.freeze({ ...PLAIN_RULES, arrayItems: true }),
    name: NAME_64,
    maxTools: 128,
  },
  "openai-strict": {
    keywords: table({
      ...STRICT_DROPPED,
      ...every(APPLICATORS_2020_12, "rejected"),
      default: "dropped",
      oneOf: "rejected",
      allOf: "rejected",
      not: "rejected",
      propertyNames: "rejected",
      prefixItems: "rejected",
      minLength: "rejected",
      maxLength: "rejected",
    }),
    rules: Object.freeze({
      closedObjects: true,
      allRequired: true,
      typed: true,
      noRecursion: false,
      arrayItems: true,
      dropUnusedDefinitions: true,
      refAlone: true,
      requiredListed: true,
      formats: new Set(FORMATS),
      maxObjectDepth: 10,
      maxProperties: 5000,
      maxEnumValues: 1000,
      maxSchemaText: 120_000,
    }),
    name: NAME_64,
    maxTools: 128,
  },
  anthropic: { keywords: table({}), rules: PLAIN_RULES, name: NAME_64 },
  "anthropic-strict": {
    keywords: table({
      ...STRICT_DROPPED,
      ...every(APPLICATORS_2020_12, "rejected"),
      oneOf: "rejected",
      not: "rejected",
      propertyNames: "rejected",
      prefixItems: "rejected",
      ...every(
        ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
        "rejected",
      ),
      ...every(["minLength", "maxLength", "maxItems"], "rejected"),
    }),
    rules: Object.freeze({
      closedObjects: true,
      allRequired: false,
      typed: false,
      noRecursion: true,
      arrayItems: false,
      dropUnusedDefinitions: true,
      formats: new Set([...FORMATS, "uri"]),
      enumTypes: new Set(["string", "number", "boolean", "null"]),
      enumOther: "rejected",
      maxMinItems: 1,
      patternRejected: /\\[bB]/,
      maxOptional: 24,
      maxUnions: 16,
    }),
    name: NAME_64,
    maxStrictTools: 20,
  },
  // `parametersJsonSchema`: the model is constrained by a subset and ignores the rest.
  gemini: {
    keywords: table(
      every(
        [
          "pattern",
          "minLength",
          "maxLength",
          "exclusiveMinimum",
          "exclusiveMaximum",
          "multipleOf",
          "const",
          "oneOf",
          "allOf",
          "not",
          "propertyNames",
          ...APPLICATORS_2020_12,
        ],
        "ignored",
      ),
    ),
    rules: Object.freeze({
      ...PLAIN_RULES,
      dropUnusedDefinitions: true,
      enumTypes: new Set(["string", "number"]),
      enumOther: "ignored",
    }),
    name: /^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$/,
  },
});

/**
 * Root keywords every provider refuses: the arguments must be one plain object schema.
 *
 * @category Agent developers: providers
 */
export const ROOT_REJECTED: ReadonlySet<string> = new Set([
  "anyOf",
  "oneOf",
  "allOf",
  "enum",
  "not",
]);

/**
 * The mode of an export: Gemini has one; OpenAI's two APIs share their rules.
 *
 * @category Agent developers: providers
 */
export function fidelityMode(provider: Provider, strict: boolean): FidelityMode {
  if (provider === "gemini") return "gemini";
  const family = provider === "anthropic" ? "anthropic" : "openai";
  return strict ? `${family}-strict` : family;
}
