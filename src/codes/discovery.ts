/**
 * The `discovery` stage of the code catalog (listing, bindings, selection, the lock);
 * `src/codes.ts` assembles the stages.
 *
 * @module
 */
import type { StageCodes } from "./entry.ts";

/**
 * The `discovery` stage's codes, each with its meaning: the part of {@link CODES} this stage writes.
 *
 * @category Errors
 */
export const DISCOVERY_CODES = {
  binding_duplicate_name: { stage: "discovery", meaning: "Two bindings share one local name." },
  binding_effect_invalid: {
    stage: "discovery",
    meaning:
      "A write binding's effect (in the binding or its policy) is not `write` or `destructive`.",
  },
  binding_effect_mismatch: {
    stage: "discovery",
    meaning: "A write binding's policy effect differs from its binding effect.",
  },
  binding_identity_missing: {
    stage: "discovery",
    meaning:
      "A write binding lacks a non-empty bindingId, bindingRevision, scopeId or scopeRevision.",
  },
  binding_invalid: {
    stage: "discovery",
    meaning: "A binding is not an object, has a non-boolean `concurrencySafe`, or there are none.",
  },
  binding_invalid_name: {
    stage: "discovery",
    meaning: "A binding's local name is empty or not `[A-Za-z0-9_-]{1,64}`.",
  },
  binding_policy_invalid: {
    stage: "discovery",
    meaning:
      'A binding\'s policy is not `{ mode: "read", title }` (read) or `{ mode: "confirm", title, effect }` (write), with a non-empty title.',
  },
  binding_scope_missing: {
    stage: "discovery",
    meaning:
      "A read binding has no `scope` field (a validator function or an explicit `null`), or a write binding's scope is not a function.",
  },
  discovery_options_invalid: {
    stage: "discovery",
    meaning:
      "A `listing` option that does not belong to the discovery's monitor, or another option discovery cannot use.",
  },
  limits_invalid: {
    stage: "discovery",
    meaning: "The limits are not an allowed adjustment of the defaults.",
  },
  mcp_catalog_too_large: {
    stage: "discovery",
    meaning: "The listed tools together exceed the catalog byte budget.",
  },
  mcp_description_too_large: {
    stage: "discovery",
    meaning: "A selected description exceeds the description byte budget.",
  },
  mcp_schema_too_large: {
    stage: "discovery",
    meaning: "A selected schema exceeds the per-schema byte budget.",
  },
  mcp_schema_unsupported: {
    stage: "discovery",
    meaning: "A selected schema does not fit the schema profile.",
  },
  mcp_too_many_pages: {
    stage: "discovery",
    meaning: "The server wants more pages than the page budget.",
  },
  mcp_too_many_tools: {
    stage: "discovery",
    meaning: "The server lists more tools than the tool budget.",
  },
  mcp_tool_missing: { stage: "discovery", meaning: "A bound tool is not in the server's list." },
  catalog_lock_mismatch: {
    stage: "discovery",
    meaning:
      "A bound tool's listed definition does not have the expected entry digest (a lock, or a changed tool not yet accepted).",
  },
  lock_invalid: {
    stage: "discovery",
    in: ["LockErrorCode"],
    meaning: "A lock is not JSON of the lock's shape.",
  },
  lock_version_unsupported: {
    stage: "discovery",
    in: ["LockErrorCode"],
    meaning: "A lock's `lockfileVersion` is not one this version reads.",
  },
  lock_digest_mismatch: {
    stage: "discovery",
    in: ["LockErrorCode"],
    meaning: "A digest in a lock is not the digest of what it covers.",
  },
  mcp_tool_task_required: {
    stage: "discovery",
    meaning: "A bound tool requires task-augmented execution, which sluice does not do.",
  },
  server_id_invalid: { stage: "discovery", meaning: "The server id is empty or not a string." },
  mcp_tool_screen_refused: {
    stage: "discovery",
    meaning:
      "A bound tool's model-visible text has a screen finding of a class its policy refuses (hidden text by default); `problem` is the finding's code, `path` its pointer.",
  },
} as const satisfies StageCodes<"discovery">;
