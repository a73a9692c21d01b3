/**
 * Bindings: the host's statement of which remote tools a model may call, under which local
 * names and policies. One concept with the policy's mode as its effect field: a read binding
 * (`mode: "read"`) runs without approval; a write binding (`mode: "confirm"`) records the
 * authorization identity its approvals are bound to.
 *
 * @module
 */
import { isRecord, type JsonObject } from "../identity/mod.ts";
import { DiscoveryError } from "./errors.ts";

/**
 * The host's extra authorization check for one call, run after the arguments validated.
 * Return `undefined` to allow; a non-empty string denies (the string stays local and is not
 * shown to the model). A validator that throws, or returns anything else, denies as well.
 *
 * @category Discovery and calls
 */
export type ScopeValidator = (
  state: unknown,
  args: JsonObject,
  signal: AbortSignal,
) => undefined | string | Promise<undefined | string>;

/**
 * The policy of a read tool: no approval, a human-readable title.
 *
 * @category Discovery and calls
 */
export interface ReadPolicy {
  /** Always `"read"` on the read entry point. */
  readonly mode: "read";
  /** Title the host gives the tool (for operators and audit, not sent to the server). */
  readonly title: string;
}

/**
 * The host's explicit statement for one remote tool: the tool really is read-only, is exposed
 * under `localName`, and needs the given scope check. Remote annotations grant nothing.
 *
 * @category Discovery and calls
 */
export interface ReadToolBinding {
  /** Name the model sees: 1 to 64 characters of `[A-Za-z0-9_-]`, unique among bindings. */
  readonly localName: string;
  /** The read policy. */
  readonly policy: ReadPolicy;
  /** A scope validator, or an explicit `null` when no extra check is intended. */
  readonly scope: ScopeValidator | null;
  /** The host's concurrency declaration: recorded in the snapshot, not acted on. */
  readonly concurrencySafe: boolean;
}

/**
 * The host's own description and input schema for a tool: discovery then never lists it, and
 * the server's description and schema are never used. The schema goes through the same
 * profile and budget checks as a listed one.
 *
 * @category Discovery and calls
 */
export interface OwnerSpec {
  /** Model-facing description. */
  readonly description: string;
  /** Input schema (must fit the schema profile). */
  readonly inputSchema: Readonly<JsonObject>;
}

/**
 * Bindings keyed by the remote tool name.
 *
 * @category Discovery and calls
 */
export type ReadToolBindings = Readonly<Record<string, ReadToolBinding>>;

/**
 * A binding after validation, detached from the host's object.
 *
 * @category Discovery and calls
 */
export interface ResolvedBinding {
  /** The binding's key: the tool's name on the server. */
  readonly remoteName: string;
  /** The validated local name. */
  readonly localName: string;
  /** A frozen copy of the policy. */
  readonly policy: ReadPolicy;
  /** The scope validator, or `null` for none. */
  readonly scope: ScopeValidator | null;
  /** The concurrency declaration. */
  readonly concurrencySafe: boolean;
  /** A detached copy of the owner's spec, when given. */
  readonly spec?: OwnerSpec;
  /** Whether a call whose reply stream broke is sent once more (2026-07-28, reads only). */
  readonly resendOnBrokenStream: boolean;
}

/**
 * Most characters of a local tool name (every provider accepts 64).
 *
 * @category Discovery and calls
 */
export const MAX_LOCAL_NAME_LENGTH = 64;

/**
 * The one local-name rule: names every provider accepts (Anthropic, OpenAI and Gemini share
 * this pattern). Bindings are checked against it; connect() builds its names to fit it.
 *
 * @category Discovery and calls
 */
export const LOCAL_NAME: RegExp = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Whether `policy` is an object of the given `mode` with a non-blank string `title`.
 *
 * @category Discovery and calls
 */
export function isTitledPolicy(
  policy: unknown,
  mode: string,
): policy is Record<string, unknown> & { readonly title: string } {
  return isRecord(policy) && policy.mode === mode && typeof policy.title === "string" &&
    policy.title.trim().length > 0;
}

/**
 * What every kind of binding shares once its name checks passed.
 *
 * @category Discovery and calls
 */
export interface BindingNames {
  readonly remoteName: string;
  readonly localName: string;
  /** A detached copy of the owner's spec, when given. */
  readonly spec?: OwnerSpec;
}

function resolveSpec(value: unknown, remoteName: string): OwnerSpec | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value) || typeof value.description !== "string" || !isRecord(value.inputSchema)) {
    throw new DiscoveryError(
      "binding_invalid",
      `binding for "${remoteName}" has a spec without a description string and inputSchema`,
      { tool: remoteName },
    );
  }
  // Detached: the host mutating its object later changes nothing.
  return structuredClone({
    description: value.description,
    inputSchema: value.inputSchema,
  }) as OwnerSpec;
}

/**
 * Walks host bindings with the checks every kind shares (an object keyed by non-empty remote
 * names, valid and unique local names, at least one binding) and lets `resolveOne` check and
 * copy the rest of each binding. Throws a {@link DiscoveryError} with a `binding_*` code.
 *
 * @category Discovery and calls
 */
export function resolveBindingsWith<T extends BindingNames>(
  bindings: unknown,
  resolveOne: (binding: Record<string, unknown>, names: BindingNames) => T,
): Map<string, T> {
  if (!isRecord(bindings)) {
    throw new DiscoveryError("binding_invalid", "bindings must be an object keyed by remote name");
  }
  const resolved = new Map<string, T>();
  const localNames = new Set<string>();
  for (const remoteName of Object.keys(bindings)) {
    const binding = bindings[remoteName];
    const tool = { tool: remoteName };
    if (remoteName.length === 0) {
      throw new DiscoveryError("binding_invalid", "a binding has an empty remote name");
    }
    if (!isRecord(binding)) {
      throw new DiscoveryError(
        "binding_invalid",
        `binding for "${remoteName}" is not an object`,
        tool,
      );
    }
    const localName = binding.localName;
    if (typeof localName !== "string" || !LOCAL_NAME.test(localName)) {
      throw new DiscoveryError(
        "binding_invalid_name",
        `binding for "${remoteName}" needs a local name of 1 to 64 characters [A-Za-z0-9_-]`,
        tool,
      );
    }
    if (localNames.has(localName)) {
      throw new DiscoveryError(
        "binding_duplicate_name",
        `local name "${localName}" is bound twice`,
        tool,
      );
    }
    localNames.add(localName);
    const spec = resolveSpec(binding.spec, remoteName);
    resolved.set(
      remoteName,
      resolveOne(binding, { remoteName, localName, ...(spec ? { spec } : {}) }),
    );
  }
  if (resolved.size === 0) throw new DiscoveryError("binding_invalid", "no tools are bound");
  return resolved;
}

/**
 * Validates read bindings and copies them, so a host mutating its object after discovery
 * changes nothing. Throws a {@link DiscoveryError} with a `binding_*` code.
 *
 * @category Discovery and calls
 */
export function resolveBindings(bindings: unknown): Map<string, ResolvedBinding> {
  return resolveBindingsWith(bindings, (binding, names) => {
    const { remoteName, localName } = names;
    const tool = { tool: remoteName };
    const policy = binding.policy;
    if (!isTitledPolicy(policy, "read")) {
      throw new DiscoveryError(
        "binding_policy_invalid",
        `binding "${localName}" needs policy { mode: "read", title: <non-empty string> }`,
        tool,
      );
    }
    if (!("scope" in binding) || (binding.scope !== null && typeof binding.scope !== "function")) {
      throw new DiscoveryError(
        "binding_scope_missing",
        `binding "${localName}" needs scope: a validator function or an explicit null`,
        tool,
      );
    }
    if (
      binding.resendOnBrokenStream !== undefined &&
      typeof binding.resendOnBrokenStream !== "boolean"
    ) {
      throw new DiscoveryError(
        "binding_invalid",
        `binding "${localName}" has a resendOnBrokenStream that is not a boolean`,
        tool,
      );
    }
    if (typeof binding.concurrencySafe !== "boolean") {
      throw new DiscoveryError(
        "binding_invalid",
        `binding "${localName}" needs a boolean concurrencySafe declaration`,
        tool,
      );
    }
    return {
      ...names,
      policy: Object.freeze({ mode: "read", title: policy.title }),
      scope: binding.scope as ScopeValidator | null,
      concurrencySafe: binding.concurrencySafe,
      resendOnBrokenStream: binding.resendOnBrokenStream === true,
    };
  });
}

/**
 * What a write does: `write` changes data, `destructive` may remove or overwrite it.
 *
 * @category Discovery and calls
 */
export type WriteEffect = "write" | "destructive";

/**
 * Who decides a write's approval, as the snapshot records it: `"inline"`, the gate's inline
 * approver (the `approve` callback); `"store"`, a person through the approval store (the call
 * ends `approval_pending`, then `resume`); `"none"`, nobody is configured to decide, so every
 * call ends `approval_unavailable` and is never sent.
 *
 * @category Discovery and calls
 */
export type ApprovalDecider = "inline" | "store" | "none";

/**
 * The policy of a write tool: every call needs a person's approval.
 *
 * @category Discovery and calls
 */
export interface WritePolicy {
  /** Always `"confirm"`: a durable, single-use approval per call. */
  readonly mode: "confirm";
  /** Title the host gives the tool (shown to the people who approve). */
  readonly title: string;
  /** The effect the host declares; must equal the binding's `effect`. */
  readonly effect: WriteEffect;
  /**
   * Who decides, when the host states it; the `Gate` refuses a catalog whose decider its own
   * options cannot honour. Absent: whoever the gate is configured with.
   */
  readonly decidedBy?: ApprovalDecider;
}

/**
 * The host's explicit statement that a remote tool writes, under which identity it is
 * authorized, and which scope check guards it. Server annotations never make a tool a write
 * tool, nor exempt one from approval.
 *
 * @category Discovery and calls
 */
export interface WriteToolBinding {
  /** Name the model sees: 1 to 64 characters of `[A-Za-z0-9_-]`, unique among bindings. */
  readonly localName: string;
  /** The confirm policy. */
  readonly policy: WritePolicy;
  /** The declared effect; must equal `policy.effect`. */
  readonly effect: WriteEffect;
  /** The scope validator. Required: `null` is not accepted for writes. */
  readonly scope: ScopeValidator;
  /** The host's stable id of this authorization (for example a row id in its config). */
  readonly bindingId: string;
  /** The host's revision of this binding; any change invalidates earlier approvals. */
  readonly bindingRevision: string;
  /** The host's id of the scope the validator enforces. */
  readonly scopeId: string;
  /** The scope's revision; a change revokes approvals made under the earlier one. */
  readonly scopeRevision: string;
  /** The owner's spec: when present the tool is not listed (see `OwnerSpec`). */
  readonly spec?: OwnerSpec;
}

/**
 * Write bindings keyed by the remote tool name.
 *
 * @category Discovery and calls
 */
export type WriteToolBindings = Readonly<Record<string, WriteToolBinding>>;

/**
 * A write binding after validation, detached from the host's object.
 *
 * @category Discovery and calls
 */
export interface ResolvedWriteBinding extends Omit<WriteToolBinding, "effect"> {
  /** The binding's key: the tool's name on the server. */
  readonly remoteName: string;
}

const DECIDERS: readonly unknown[] = ["inline", "store", "none"];

const IDENTITY_FIELDS = ["bindingId", "bindingRevision", "scopeId", "scopeRevision"] as const;

function isEffect(value: unknown): value is WriteEffect {
  return value === "write" || value === "destructive";
}

/**
 * Validates write bindings and copies them. Each failure has its own code:
 * `binding_policy_invalid` (not `{ mode: "confirm", title, effect }`), `binding_effect_invalid`
 * (an effect other than write/destructive), `binding_effect_mismatch` (policy and binding
 * disagree), `binding_scope_missing` (no callable validator), `binding_identity_missing`
 * (an empty or absent bindingId, bindingRevision, scopeId or scopeRevision).
 *
 * @category Discovery and calls
 */
export function resolveWriteBindings(bindings: unknown): Map<string, ResolvedWriteBinding> {
  return resolveBindingsWith(bindings, (binding, names) => {
    const { remoteName, localName } = names;
    const tool = { tool: remoteName };
    const policy = binding.policy;
    if (!isTitledPolicy(policy, "confirm")) {
      throw new DiscoveryError(
        "binding_policy_invalid",
        `binding "${localName}" needs policy { mode: "confirm", title: <non-empty>, effect }`,
        tool,
      );
    }
    if (!isEffect(policy.effect) || !isEffect(binding.effect)) {
      throw new DiscoveryError(
        "binding_effect_invalid",
        `binding "${localName}" needs effect "write" or "destructive" in the binding and policy`,
        tool,
      );
    }
    if (policy.decidedBy !== undefined && !DECIDERS.includes(policy.decidedBy)) {
      throw new DiscoveryError(
        "binding_policy_invalid",
        `binding "${localName}" has a decidedBy other than "inline", "store" or "none"`,
        tool,
      );
    }
    if (policy.effect !== binding.effect) {
      throw new DiscoveryError(
        "binding_effect_mismatch",
        `binding "${localName}" declares one effect in its policy and another in the binding`,
        tool,
      );
    }
    if (typeof binding.scope !== "function") {
      throw new DiscoveryError(
        "binding_scope_missing",
        `write binding "${localName}" needs a scope validator function (null is not allowed)`,
        tool,
      );
    }
    for (const field of IDENTITY_FIELDS) {
      const value = binding[field];
      if (typeof value !== "string" || value.trim().length === 0 || !value.isWellFormed()) {
        throw new DiscoveryError(
          "binding_identity_missing",
          `write binding "${localName}" needs a non-empty ${field}`,
          tool,
        );
      }
    }
    if ("concurrencySafe" in binding && binding.concurrencySafe !== false) {
      throw new DiscoveryError(
        "binding_invalid",
        `write binding "${localName}" cannot be concurrency-safe`,
        tool,
      );
    }
    return {
      ...names,
      policy: Object.freeze({
        mode: "confirm",
        title: policy.title,
        effect: policy.effect,
        ...(policy.decidedBy !== undefined
          ? { decidedBy: policy.decidedBy as ApprovalDecider }
          : {}),
      }),
      scope: binding.scope as ScopeValidator,
      bindingId: binding.bindingId as string,
      bindingRevision: binding.bindingRevision as string,
      scopeId: binding.scopeId as string,
      scopeRevision: binding.scopeRevision as string,
    };
  });
}

/**
 * A resolved binding of either kind; `policy.mode` says which.
 *
 * @category Discovery and calls
 */
export type AnyResolvedBinding = ResolvedBinding | ResolvedWriteBinding;

/**
 * Whether a resolved binding is a write binding (a confirm policy).
 *
 * @param binding the resolved binding
 *
 * @category Discovery and calls
 */
export function isWriteBinding(binding: AnyResolvedBinding): binding is ResolvedWriteBinding {
  return binding.policy.mode === "confirm";
}

/**
 * The read and write bindings of one server in one map keyed by remote name. A remote name
 * bound on both sides is `binding_invalid`, a local name on both `binding_duplicate_name`; no
 * binding at all is `binding_invalid`.
 *
 * @param reads the read bindings, if any
 * @param writes the write bindings, if any
 *
 * @category Discovery and calls
 */
export function resolveAllBindings(
  reads: unknown,
  writes: unknown,
): Map<string, AnyResolvedBinding> {
  const all = new Map<string, AnyResolvedBinding>(
    reads !== undefined ? resolveBindings(reads) : [],
  );
  const localNames = new Set([...all.values()].map((binding) => binding.localName));
  for (const [remoteName, binding] of writes !== undefined ? resolveWriteBindings(writes) : []) {
    if (all.has(remoteName) || localNames.has(binding.localName)) {
      throw new DiscoveryError(
        all.has(remoteName) ? "binding_invalid" : "binding_duplicate_name",
        `"${remoteName}" is bound as a read and as a write tool`,
        { tool: remoteName },
      );
    }
    all.set(remoteName, binding);
  }
  if (all.size === 0) throw new DiscoveryError("binding_invalid", "no tools are bound");
  return all;
}
