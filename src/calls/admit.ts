/**
 * Admission of one call: every local check, before anything is sent.
 *
 * @module
 */
import { type CanonicalForm, canonicalForm, type JsonObject } from "../identity/mod.ts";
import type { ValidationError } from "../schema/types.ts";
import { validateCanonical } from "../schema/compile.ts";
import {
  type ArgumentProblem,
  type CallErrorCode,
  failure,
  MAX_ARGUMENT_PROBLEMS,
  type ToolEnvelope,
} from "./envelope.ts";
import { type CallPlan, catalogProblem } from "./call_plan.ts";
import { DeadlineStopped } from "./within_deadline.ts";

/**
 * Outcome of the local checks of a call.
 *
 * @category Discovery and calls
 */
export type Admission =
  /** Admitted: detached arguments, safe to send, and their canonical text (for digests). */
  | { readonly ok: true; readonly args: JsonObject; readonly canonical: string }
  /** Refused locally; nothing was sent. `problems` with a schema refusal of the arguments. */
  | {
    readonly ok: false;
    readonly errorCode: CallErrorCode;
    readonly problems?: readonly ArgumentProblem[];
  };

/** Keywords that only fail because a subschema below them failed. */
const APPLICATORS: ReadonlySet<string> = new Set([
  "properties",
  "patternProperties",
  "additionalProperties",
  "items",
  "prefixItems",
  "allOf",
  "$ref",
  "dependentSchemas",
]);

/**
 * What the model is told about arguments that broke the schema: pointers into its own
 * arguments and profile keywords (nothing of the schema: no pattern text, no enum values),
 * the failing leaves only, at most {@link MAX_ARGUMENT_PROBLEMS}.
 */
function argumentProblems(errors: readonly ValidationError[]): ArgumentProblem[] {
  const leaves = errors.filter((error) =>
    !APPLICATORS.has(error.keyword) ||
    !errors.some((other) => other !== error && other.path.startsWith(`${error.path}/`))
  );
  return leaves.slice(0, MAX_ARGUMENT_PROBLEMS).map(({ path, keyword }) => ({ path, keyword }));
}

/**
 * The local checks of one call, nothing sent: catalog status, argument budget and schema
 * (the compiled validator), scope validator. Admitted arguments are a detached copy.
 *
 * @param plan the tool's call plan
 * @param args the arguments as the model sent them
 * @param state host state for the scope validator
 * @param signal stops waiting (`mcp_aborted`)
 *
 * @category Discovery and calls
 */
export async function admitCall(
  plan: CallPlan,
  args: unknown,
  state: unknown,
  signal: AbortSignal | undefined,
): Promise<Admission> {
  const stopped = catalogProblem(plan) ?? (signal?.aborted ? "mcp_aborted" : undefined);
  if (stopped) return { ok: false, errorCode: stopped };
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return { ok: false, errorCode: "mcp_invalid_arguments" };
  }
  let form: CanonicalForm;
  let detached: JsonObject;
  try {
    // One pass bounds the size, refuses non-JSON and yields a copy the caller cannot mutate;
    // the schema's value budget is checked on its counts, not by a second pass.
    form = canonicalForm(args, { maxBytes: plan.limits.maxArgumentBytes });
    detached = JSON.parse(form.text);
  } catch {
    return { ok: false, errorCode: "mcp_invalid_arguments" };
  }
  const canonical = form.text;
  const validation = validateCanonical(plan.validateInput, detached, form);
  if (!validation.valid) {
    return {
      ok: false,
      errorCode: "mcp_invalid_arguments",
      problems: argumentProblems(validation.errors),
    };
  }
  if (plan.scope) {
    let verdict: unknown;
    try {
      verdict = await plan.scope(state, JSON.parse(canonical), signal);
    } catch (error) {
      if (error instanceof DeadlineStopped) return { ok: false, errorCode: error.code };
      verdict = "scope validator threw";
    }
    // Only an explicit `undefined` allows; anything else (an empty string too) denies.
    if (verdict !== undefined) return { ok: false, errorCode: "mcp_scope_denied" };
    const later = catalogProblem(plan) ?? (signal?.aborted ? "mcp_aborted" : undefined);
    if (later) return { ok: false, errorCode: later };
  }
  return { ok: true, args: detached, canonical };
}

/**
 * The envelope of a refused admission (with its argument problems, when any).
 *
 * @param admission the refusal
 *
 * @category Discovery and calls
 */
export function refusal(admission: Admission & { readonly ok: false }): ToolEnvelope {
  return failure(
    admission.errorCode,
    admission.problems ? { problems: admission.problems } : undefined,
  );
}
