import { SluiceError } from "../errors.ts";
import type { SessionErrorCode } from "../session/session.ts";
import type { CodeOf } from "../codes.ts";
import type { LockErrorCode } from "./lock.ts";

/**
 * Stable codes for why discovery failed.
 *
 * @category Discovery and calls
 */
export type DiscoveryErrorCode = Exclude<CodeOf<"discovery">, LockErrorCode> | SessionErrorCode;

/**
 * Which schema of a tool a schema error concerns.
 *
 * @category Discovery and calls
 */
export type SchemaRole = "input" | "output";

/**
 * Details attached to a {@link DiscoveryError}.
 *
 * @category Discovery and calls
 */
export interface DiscoveryErrorDetails {
  /** Remote name of the bound tool concerned (a name the host chose to bind). */
  readonly tool?: string;
  /** Which of the tool's schemas, for schema errors. */
  readonly schema?: SchemaRole;
  /** The schema keyword at fault, for `mcp_schema_unsupported`. */
  readonly keyword?: string;
  /** JSON Pointer of the keyword inside that schema, for `mcp_schema_unsupported`. */
  readonly path?: string;
  /** The schema profile's own problem code, for `mcp_schema_unsupported`. */
  readonly problem?: string;
}

/**
 * Thrown by `discoverTools` with a stable code. The message is sluice's own text: it names
 * only host-bound tool names and sluice's codes, never remote descriptions, values, error
 * messages, schema keywords or JSON Pointers (those two are in `keyword` and `path`).
 *
 * @category Discovery and calls
 */
export class DiscoveryError extends SluiceError<DiscoveryErrorCode> {
  /** Remote name of the bound tool concerned. */
  readonly tool?: string;
  /** Which schema, for schema errors. */
  readonly schema?: SchemaRole;
  /** Schema keyword at fault. */
  readonly keyword?: string;
  /** JSON Pointer of that keyword in the schema. */
  readonly path?: string;
  /** The schema profile's problem code. */
  readonly problem?: string;

  /**
   * Creates a discovery failure.
   *
   * @param code stable code
   * @param message explanation written by sluice
   * @param details the tool, schema, keyword and path concerned, when any
   * @param cause the underlying error (a failed request), kept for the host's logs
   */
  constructor(
    code: DiscoveryErrorCode,
    message: string,
    details: DiscoveryErrorDetails = {},
    cause?: unknown,
  ) {
    super(code, message, cause === undefined ? undefined : { cause });
    this.name = "DiscoveryError";
    if (details.tool !== undefined) this.tool = details.tool;
    if (details.schema !== undefined) this.schema = details.schema;
    if (details.keyword !== undefined) this.keyword = details.keyword;
    if (details.path !== undefined) this.path = details.path;
    if (details.problem !== undefined) this.problem = details.problem;
  }
}
