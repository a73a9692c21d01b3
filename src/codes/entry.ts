/**
 * The shape of the code catalog: the stages, the unions beyond a stage, and one code's entry.
 * Apart from the data modules so that each of them and `src/codes.ts` import it without a circle.
 *
 * @module
 */

/**
 * The pipeline stage a code belongs to, in the order a call meets them.
 *
 * @category Errors
 */
export type CodeStage =
  | "install"
  | "identity"
  | "schema"
  | "screen"
  | "transport"
  | "auth"
  | "session"
  | "discovery"
  | "call"
  | "gate"
  | "approvals"
  | "connect"
  | "inbox"
  | "serve"
  | "cli";

/**
 * The code unions that are not a whole stage, by the name of the type that lists them. A code
 * names in its `in` every such union it belongs to; a union may also take in other unions
 * (`ToolkitErrorCode` is `GateErrorCode` plus its own).
 *
 * @category Errors
 */
export type CodeGroup =
  | "SchemaProblemCode"
  | "ValidationErrorCode"
  | "LockErrorCode"
  | "DeadlineStop"
  | "GateErrorCodeThrown"
  | "ToolMapProblem"
  | "ClaimRefusalCode"
  | "GrantRefusalCode"
  | "GrantApprovalResult"
  | "ApprovalErrorCode"
  | "ConnectConfigErrorCode"
  | "ProviderRefusalCode"
  | "ToolkitErrorCode";

/**
 * What the catalog says of one code.
 *
 * @category Errors
 */
export interface CodeEntry {
  /** The stage the code belongs to. */
  readonly stage: CodeStage;
  /** The unions beyond its stage that hold it. */
  readonly in?: readonly CodeGroup[];
  /** What it means, in one line. */
  readonly meaning: string;
}

/**
 * The shape of one stage's codes: every entry is of that stage.
 *
 * @category Errors
 */
export type StageCodes<Stage extends CodeStage> = Readonly<
  Record<string, CodeEntry & { readonly stage: Stage }>
>;
