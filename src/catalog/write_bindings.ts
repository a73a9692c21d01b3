import { DiscoveryError } from "./errors.ts";
import { isRecord, resolveBindingsWith, type ScopeValidator } from "./bindings.ts";

/** What a write does: `write` changes data, `destructive` may remove or overwrite it. */
export type WriteEffect = "write" | "destructive";

/** The policy of a write tool: every call needs a person's approval. */
export interface WritePolicy {
  /** Always `"confirm"`: a durable, single-use approval per call. */
  readonly mode: "confirm";
  /** Title the host gives the tool (shown to the people who approve). */
  readonly title: string;
  /** The effect the host declares; must equal the binding's `effect`. */
  readonly effect: WriteEffect;
}

/**
 * The host's explicit statement that a remote tool writes, under which identity it is
 * authorized, and which scope check guards it. Server annotations never make a tool a write
 * tool, nor exempt one from approval.
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
}

/** Write bindings keyed by the remote tool name. */
export type WriteToolBindings = Readonly<Record<string, WriteToolBinding>>;

/** A write binding after validation, detached from the host's object. */
export interface ResolvedWriteBinding {
  readonly remoteName: string;
  readonly localName: string;
  readonly policy: WritePolicy;
  readonly scope: ScopeValidator;
  readonly bindingId: string;
  readonly bindingRevision: string;
  readonly scopeId: string;
  readonly scopeRevision: string;
}

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
 */
export function resolveWriteBindings(bindings: unknown): Map<string, ResolvedWriteBinding> {
  return resolveBindingsWith(bindings, (binding, { remoteName, localName }) => {
    const tool = { tool: remoteName };
    const policy = binding.policy;
    if (
      !isRecord(policy) || policy.mode !== "confirm" || typeof policy.title !== "string" ||
      policy.title.trim().length === 0
    ) {
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
      remoteName,
      localName,
      policy: Object.freeze({ mode: "confirm", title: policy.title, effect: policy.effect }),
      scope: binding.scope as ScopeValidator,
      bindingId: binding.bindingId as string,
      bindingRevision: binding.bindingRevision as string,
      scopeId: binding.scopeId as string,
      scopeRevision: binding.scopeRevision as string,
    };
  });
}
