/**
 * The one envelope every call path returns: the registration's `call`, the gate and the
 * toolkit. Reads fill the base fields; writes add the effect, the approval and the receipt.
 *
 * @module
 */
import type { JsonValue } from "../identity/mod.ts";
import type { SessionErrorCode } from "../session/session.ts";
import type { ApprovalReceipt } from "../approvals/types.ts";
import type { CodeOf } from "../codes.ts";

/**
 * Why a call produced no result. A fixed string; remote error text never appears.
 *
 * @category Discovery and calls
 */
export type CallErrorCode = CodeOf<"call"> | SessionErrorCode;

/**
 * Where the model's arguments broke the input schema: a JSON Pointer into the arguments the
 * model sent and the profile keyword that failed. Never a value from the server's schema.
 *
 * @category Discovery and calls
 */
export interface ArgumentProblem {
  /** JSON Pointer (RFC 6901) into the model's arguments. */
  readonly path: string;
  /** The schema keyword that failed (`required`, `type`, `pattern`, ...) or the budget. */
  readonly keyword: string;
}

/**
 * Most argument problems an envelope carries.
 *
 * @category Discovery and calls
 */
export const MAX_ARGUMENT_PROBLEMS = 8;

/**
 * What a write did, as far as sluice can prove it.
 *
 * @category Discovery and calls
 */
export type WriteOutcomeEffect = "committed" | "not_started" | "unknown";

/**
 * What a model gets back from a tool call. On failure `structured` is `null`, `errorCode`
 * says why and `text` is empty or sluice's own fixed sentence (approval outcomes). Calls that
 * need an approval add `effect` and (once the approval exists) `approvalId`; a committed one
 * adds `receipt`.
 *
 * @typeParam Code the codes this path can return
 *
 * @category Discovery and calls
 */
export interface ToolEnvelope<Code extends string = CallErrorCode> {
  /** The text blocks of the result, in order (or sluice's fixed approval sentence). */
  readonly text: readonly string[];
  /** The validated structured content, or `null`. */
  readonly structured: JsonValue | null;
  /** Present exactly when the call produced no fresh result. */
  readonly errorCode?: Code;
  /** With `mcp_invalid_arguments` from the schema: where the arguments broke it (at most 8). */
  readonly problems?: readonly ArgumentProblem[];
  /** Calls with an approval: what happened at the server as far as sluice can prove. */
  readonly effect?: WriteOutcomeEffect;
  /** Calls with an approval: the approval the call is bound to (pass it to `resume`). */
  readonly approvalId?: string;
  /** Committed calls with an approval: the digest of the result and when it was recorded. */
  readonly receipt?: ApprovalReceipt;
  /**
   * With `mcp_server_unavailable` (toolkit envelopes): the code the tool's server failed with
   * (`transport_failed`, `auth_authorization_required`, ...). A sluice code, never server text.
   */
  readonly cause?: string;
}

/**
 * The failure envelope for `code`.
 *
 * @param code why the call produced no result
 * @param extra problems or write fields
 *
 * @category Discovery and calls
 */
export function failure<Code extends string>(
  code: Code,
  extra?: Omit<ToolEnvelope<Code>, "text" | "structured" | "errorCode">,
): ToolEnvelope<Code> {
  return { text: [], structured: null, errorCode: code, ...extra };
}
