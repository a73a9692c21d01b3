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
