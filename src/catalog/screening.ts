/**
 * The poisoning screen at discovery: the policy (which classes refuse a tool, which are only
 * reported), the context a server's tools are read in, and the verdict of each selected tool.
 *
 * @module
 */
import type { ScreenClass, ScreenFinding } from "../screen/findings.ts";
import { screenToolsInTurns } from "../screen/screen.ts";
import { DiscoveryError } from "./errors.ts";
import { canonicalize, type JsonValue } from "../identity/mod.ts";

/**
 * What a finding of one class does: `"refuse"` skips (or fails) the tool with
 * `mcp_tool_screen_refused`; `"report"` keeps it and reports the finding.
 *
 * @category Tool poisoning screen
 */
export type ScreenAction = "refuse" | "report";

/**
 * The host's screen policy, by class; an absent class takes the default
 * ({@link DEFAULT_SCREEN_POLICY}: hidden text refused, the heuristic classes reported).
 *
 * @category Tool poisoning screen
 */
export type ScreenPolicy = { readonly [Class in ScreenClass]?: ScreenAction };

/**
 * A screen policy with every class decided.
 *
 * @category Tool poisoning screen
 */
export type ResolvedScreenPolicy = { readonly [Class in ScreenClass]: ScreenAction };

/**
 * The default: hidden and deceptive text refuses a tool (a model reads what a person cannot
 * see: nothing honest needs it); the heuristic classes are word rules that real servers trip
 * now and then, so they are reported.
 *
 * @category Tool poisoning screen
 */
export const DEFAULT_SCREEN_POLICY: ResolvedScreenPolicy = Object.freeze({
  hidden: "refuse",
  markup: "report",
  shadowing: "report",
  exfiltration: "report",
});

const CLASSES: readonly ScreenClass[] = ["hidden", "markup", "shadowing", "exfiltration"];

/**
 * `policy` over `base`, or `null` for `false` (the screen off). Throws a `TypeError` naming the
 * field for anything else than an object of known classes with `"refuse"` or `"report"`.
 *
 * @param policy the host's policy, `false`, or `undefined` (the base)
 * @param base what an absent class takes
 * @param field the option's name, for the error
 *
 * @category Tool poisoning screen
 */
export function resolveScreenPolicy(
  policy: unknown,
  base: ResolvedScreenPolicy | null = DEFAULT_SCREEN_POLICY,
  field = "screen",
): ResolvedScreenPolicy | null {
  if (policy === undefined) return base;
  if (policy === false) return null;
  if (typeof policy !== "object" || policy === null || Array.isArray(policy)) {
    throw new TypeError(`${field} must be false or an object of classes`);
  }
  const resolved: Record<string, ScreenAction> = { ...(base ?? DEFAULT_SCREEN_POLICY) };
  for (const [key, action] of Object.entries(policy)) {
    if (!(CLASSES as readonly string[]).includes(key)) {
      throw new TypeError(`${field} has an unknown class (${CLASSES.join(", ")} are known)`);
    }
    if (action !== "refuse" && action !== "report") {
      throw new TypeError(`${field}.${key} must be "refuse" or "report"`);
    }
    resolved[key] = action;
  }
  return Object.freeze(resolved) as ResolvedScreenPolicy;
}

/**
 * The screen of one discovery: the host's other names, and the policy per tool.
 *
 * @category Tool poisoning screen
 */
export interface DiscoveryScreen {
  /** The tools the host allows on its other servers (naming one is shadowing). */
  readonly otherToolNames?: readonly string[];
  /** The host's ids of its other servers. */
  readonly serverNames?: readonly string[];
  /** The server's policy (default {@link DEFAULT_SCREEN_POLICY}). */
  readonly policy?: ScreenPolicy;
  /** Per remote tool name: a policy over the server's, or `false` (that tool not screened). */
  readonly tools?: Readonly<Record<string, ScreenPolicy | false>>;
}

/**
 * One screened tool: its findings (empty for a clean tool) and the policy they were judged by.
 *
 * @category Tool poisoning screen
 */
export interface ToolScreen {
  /** The findings over what the model would see of the tool (an owner spec's text, if any). */
  readonly findings: readonly ScreenFinding[];
  /** The policy in force for the tool. */
  readonly policy: ResolvedScreenPolicy;
}

/**
 * The first finding `policy` refuses, if any.
 *
 * @param screen the tool's screen
 *
 * @category Tool poisoning screen
 */
export function refusedFinding(screen: ToolScreen): ScreenFinding | undefined {
  return screen.findings.find((finding) => screen.policy[finding.class] === "refuse");
}

/**
 * The refusal of a tool by its first refused finding: the finding's code as `problem`, its
 * pointer as `path` (never the text).
 *
 * @param remoteName the bound tool
 * @param finding the refused finding
 *
 * @category Tool poisoning screen
 */
export function screenRefusal(remoteName: string, finding: ScreenFinding): DiscoveryError {
  return new DiscoveryError(
    "mcp_tool_screen_refused",
    `tool "${remoteName}" is refused by the poisoning screen (${finding.code}); ` +
      "see the error's problem and path, or give an owner spec",
    { tool: remoteName, problem: finding.code, path: finding.pointer },
  );
}

/**
 * Screens the given tools of one server (what the model would see of each), together, so each
 * is read with the others' names; a tool whose policy is `false` is not read.
 *
 * @param tools the selected tools' model-visible fields
 * @param screen the host's context and policies (`false`: nothing is screened)
 * @param pause awaited after each tool (discovery's short turns)
 * @returns each screened tool's verdict by remote name
 *
 * @category Tool poisoning screen
 */
export async function screenSelected(
  tools: readonly { readonly name: string }[],
  screen: DiscoveryScreen | false | undefined,
  pause: () => Promise<void> | void = () => {},
): Promise<Map<string, ToolScreen>> {
  const verdicts = new Map<string, ToolScreen>();
  if (screen === false) return verdicts;
  const base = resolveScreenPolicy(screen?.policy)!;
  const policies = new Map<string, ResolvedScreenPolicy>();
  for (const tool of tools) {
    const policy = resolveScreenPolicy(screen?.tools?.[tool.name], base);
    if (policy !== null) policies.set(tool.name, policy);
  }
  const read = tools.filter((tool) => policies.has(tool.name));
  const findings = await screenToolsInTurns(read, {
    otherToolNames: screen?.otherToolNames ?? [],
    serverNames: screen?.serverNames ?? [],
  }, pause);
  read.forEach((tool, index) => {
    verdicts.set(tool.name, { findings: findings[index], policy: policies.get(tool.name)! });
  });
  return verdicts;
}

/**
 * One finding of the poisoning screen as a lock pins it: its code and JSON Pointer, never the
 * text (nor a decoded hidden message).
 *
 * @category Discovery and calls
 */
export interface LockedFinding {
  /** The finding's code (`screen_*`). */
  readonly code: string;
  /** Its JSON Pointer into the definition. */
  readonly pointer: string;
}

/**
 * The findings as a lock pins them: code and pointer only, sorted by pointer then code, once
 * each.
 *
 * @param findings the screen's findings (or locked ones)
 *
 * @category Discovery and calls
 */
export function lockedFindings(
  findings: readonly (ScreenFinding | LockedFinding)[],
): LockedFinding[] {
  const unique = new Map<string, LockedFinding>();
  for (const finding of findings) {
    unique.set(`${finding.pointer}\u0000${finding.code}`, {
      code: finding.code,
      pointer: finding.pointer,
    });
  }
  return [...unique.entries()].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0).map(([, f]) => f);
}

/**
 * Whether two verdicts pin the same findings (codes and pointers).
 *
 * @param a one verdict
 * @param b the other
 *
 * @category Discovery and calls
 */
export function sameFindings(
  a: readonly (ScreenFinding | LockedFinding)[],
  b: readonly (ScreenFinding | LockedFinding)[],
): boolean {
  return canonicalize(lockedFindings(a) as unknown as JsonValue) ===
    canonicalize(lockedFindings(b) as unknown as JsonValue);
}

/**
 * How the screen's verdict on a tool differs from the locked one.
 *
 * @category Discovery and calls
 */
export interface ScreenChange {
  /** The locked findings. */
  readonly locked: readonly LockedFinding[];
  /** The findings now. */
  readonly found: readonly LockedFinding[];
  /** Findings now that the lock does not have. */
  readonly added: readonly LockedFinding[];
  /** Locked findings no longer found. */
  readonly removed: readonly LockedFinding[];
}

/**
 * The difference between two verdicts, or `undefined` when they pin the same findings.
 *
 * @param locked the locked (or earlier) findings
 * @param found the findings now
 *
 * @category Discovery and calls
 */
export function screenChange(
  locked: readonly (ScreenFinding | LockedFinding)[],
  found: readonly (ScreenFinding | LockedFinding)[],
): ScreenChange | undefined {
  const before = lockedFindings(locked);
  const after = lockedFindings(found);
  const key = (finding: LockedFinding) => `${finding.pointer}\u0000${finding.code}`;
  const had = new Set(before.map(key));
  const has = new Set(after.map(key));
  const added = after.filter((finding) => !had.has(key(finding)));
  const removed = before.filter((finding) => !has.has(key(finding)));
  if (added.length === 0 && removed.length === 0) return undefined;
  return { locked: before, found: after, added, removed };
}
