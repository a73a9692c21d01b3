import { DiscoveryError } from "./errors.ts";
import {
  isTitledPolicy,
  type OwnerSpec,
  resolveBindingsWith,
  type ScopeValidator,
} from "./bindings.ts";

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
export interface ResolvedWriteBinding {
  readonly remoteName: string;
  readonly localName: string;
  readonly policy: WritePolicy;
  readonly scope: ScopeValidator;
  readonly bindingId: string;
  readonly bindingRevision: string;
  readonly scopeId: string;
  readonly scopeRevision: string;
  readonly spec?: OwnerSpec;
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
