/**
 * A toolkit envelope as an MCP `tools/call` result. What the envelope holds is all that goes
 * back: the remote text blocks and validated structured content of a result that passed the
 * gate, or, for anything else, sluice's own sentences and codes (never remote text).
 *
 * @module
 */
import { CODES } from "../codes.ts";
import type { ToolkitEnvelope, ToolkitErrorCode } from "../connect/mod.ts";
import type { ServeErrorCode } from "./errors.ts";
import type { JsonObject, JsonValue } from "../identity/mod.ts";

/**
 * The `_meta` key of a served result that carries the envelope's codes and approval fields, for
 * a client (not a model) that reads them.
 *
 * @category sluice serve
 */
export const OUTCOME_META_KEY = "io.sluice/outcome";

/**
 * What a served call answers with: the toolkit's envelope, or serve's own refusal of the call.
 *
 * @category sluice serve
 */
export type ServedEnvelope = Omit<ToolkitEnvelope, "errorCode"> & {
  readonly errorCode?: ToolkitErrorCode | ServeErrorCode;
};

/**
 * The MCP result a served call returns (the fields sluice fills of `CallToolResult`).
 *
 * @category sluice serve
 */
export interface ServedResult {
  /** Text blocks: the result's own, or sluice's sentences when the call produced none. */
  readonly content: readonly { readonly type: "text"; readonly text: string }[];
  /** The result's validated structured content, when it is an object. */
  readonly structuredContent?: JsonObject;
  /** Set when the call produced no fresh result (refused, pending, failed). */
  readonly isError?: true;
  /** `io.sluice/outcome`: `errorCode`, `effect`, `approvalId`, `receipt`, `problems`, `cause`. */
  readonly _meta: { readonly [OUTCOME_META_KEY]: JsonObject };
  /** The MCP SDK's result type is open: a served result is assignable to it. */
  readonly [key: string]: unknown;
}

/**
 * The MCP result of one envelope.
 *
 * @param envelope what `toolkit.call` returned
 *
 * @category sluice serve
 */
export function servedResult(envelope: ServedEnvelope): ServedResult {
  const outcome = outcomeOf(envelope);
  if (envelope.errorCode === undefined) {
    const structured = envelope.structured;
    return {
      content: envelope.text.map(textBlock),
      ...(isObject(structured) ? { structuredContent: structured } : {}),
      _meta: { [OUTCOME_META_KEY]: outcome },
    };
  }
  return {
    content: [...envelope.text, ...explain(envelope)].map(textBlock),
    isError: true,
    _meta: { [OUTCOME_META_KEY]: outcome },
  };
}

/**
 * sluice's words for an envelope without a result: what happened, and for a pending approval
 * what the model can do next.
 */
function explain(envelope: ServedEnvelope): string[] {
  const code = envelope.errorCode!;
  const { approvalId, effect } = envelope;
  if (code === "approval_pending" && approvalId !== undefined) {
    return [
      `This call needs a person's approval and has not run. Approval id: ${approvalId}. ` +
      "Once a person has decided, call this tool again with exactly the same arguments to " +
      "get its outcome.",
    ];
  }
  if (code === "approval_already_claimed" && effect !== undefined) {
    return [
      `This call was already run once (recorded outcome: ${effect}); it is never run twice, ` +
      "and its result went back to the request that ran it.",
    ];
  }
  const meaning = (CODES as Readonly<Record<string, { meaning: string }>>)[code]?.meaning;
  const lines = [`This call produced no result: ${code}${meaning ? `: ${meaning}` : "."}`];
  if (envelope.problems !== undefined && envelope.problems.length > 0) {
    lines.push(
      "Argument problems: " +
        envelope.problems.map((problem) => `${problem.path || "/"} (${problem.keyword})`)
          .join(", "),
    );
  }
  if (effect !== undefined) lines.push(`Effect at the server: ${effect}.`);
  return lines;
}

function outcomeOf(envelope: ServedEnvelope): JsonObject {
  const outcome: Record<string, JsonValue> = {};
  if (envelope.errorCode !== undefined) outcome.errorCode = envelope.errorCode;
  if (envelope.effect !== undefined) outcome.effect = envelope.effect;
  if (envelope.approvalId !== undefined) outcome.approvalId = envelope.approvalId;
  if (envelope.receipt !== undefined) {
    outcome.receipt = { resultDigest: envelope.receipt.resultDigest, at: envelope.receipt.at };
  }
  if (envelope.problems !== undefined) {
    outcome.problems = envelope.problems.map((problem) => ({
      path: problem.path,
      keyword: problem.keyword,
    }));
  }
  if (envelope.cause !== undefined) outcome.cause = envelope.cause;
  return outcome;
}

function textBlock(text: string): { type: "text"; text: string } {
  return { type: "text", text };
}

function isObject(value: JsonValue | null): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
