import { SluiceError } from "../errors.ts";
import type { SessionErrorCode } from "../session/session.ts";

/**
 * Stable codes for why discovery failed.
 *
 * @category Discovery and calls
 */
export type DiscoveryErrorCode =
  /** A binding's local name is empty or not `[A-Za-z0-9_-]{1,64}`. */
  | "binding_invalid_name"
  /** Two bindings share one local name. */
  | "binding_duplicate_name"
  /**
   * A binding's policy is not `{ mode: "read", title }` (read) or
   * `{ mode: "confirm", title, effect }` (write), with a non-empty title.
   */
  | "binding_policy_invalid"
  /** A write binding's effect (in the binding or its policy) is not `write` or `destructive`. */
  | "binding_effect_invalid"
  /** A write binding's policy effect differs from its binding effect. */
  | "binding_effect_mismatch"
  /** A write binding lacks a non-empty bindingId, bindingRevision, scopeId or scopeRevision. */
  | "binding_identity_missing"
  /**
   * A read binding has no `scope` field (a validator function or an explicit `null`), or a
   * write binding's scope is not a function.
   */
  | "binding_scope_missing"
  /** A binding is not an object, has a non-boolean `concurrencySafe`, or there are none. */
  | "binding_invalid"
  /** The server id is empty or not a string. */
  | "server_id_invalid"
  /** The limits are not an allowed adjustment of the defaults. */
  | "limits_invalid"
  /** The negotiated protocol version is missing or not one sluice accepts. */
  | "mcp_protocol_version_unsupported"
  /** The listed tools together exceed the catalog byte budget. */
  | "mcp_catalog_too_large"
  /** The server wants more pages than the page budget. */
  | "mcp_too_many_pages"
  /** The server lists more tools than the tool budget. */
  | "mcp_too_many_tools"
  /** A selected schema exceeds the per-schema byte budget. */
  | "mcp_schema_too_large"
  /** A selected description exceeds the description byte budget. */
  | "mcp_description_too_large"
  /** A selected schema does not fit the schema profile. */
  | "mcp_schema_unsupported"
  /** A bound tool is not in the server's list. */
  | "mcp_tool_missing"
  /** A bound tool's listed definition does not have the expected entry digest (a lock). */
  | "catalog_lock_mismatch"
  /** A bound tool requires task-augmented execution, which sluice does not do. */
  | "mcp_tool_task_required"
  /**
   * A `listing` option that does not belong to the discovery's monitor, or another option
   * discovery cannot use.
   */
  | "discovery_options_invalid"
  /**
   * The server broke the protocol (a malformed page, a bound tool listed twice or not plain
   * JSON, a JSON-RPC error).
   */
  | "mcp_protocol_error"
  /** A `tools/list` request failed: deadline, abort, closed session, transport (its code). */
  | SessionErrorCode;

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
