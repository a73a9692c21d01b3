/**
 * What the poisoning screen reports: one finding per suspicious string, by class, with a stable
 * code and a JSON Pointer into the tool definition. A finding never carries the remote text,
 * except `decoded` (the hidden message, for the operator).
 *
 * @module
 */
import type { CodeOf } from "../codes.ts";

/**
 * The four classes of the screen: hidden or deceptive text (refused by default once the screen is
 * wired into discovery), and three heuristic classes (reported).
 *
 * @category Tool poisoning screen
 */
export type ScreenClass = "hidden" | "markup" | "shadowing" | "exfiltration";

/**
 * Every code the screen reports (the catalog's `screen` stage).
 *
 * @category Tool poisoning screen
 */
export type ScreenCode = CodeOf<"screen">;

/**
 * The codes of one class: a code's class is the word after `screen_`.
 *
 * @example
 * ```ts
 * import type { ScreenCodeOf } from "@sluice/mcp";
 * const code: ScreenCodeOf<"hidden"> = "screen_hidden_tag_characters";
 * ```
 *
 * @category Tool poisoning screen
 */
export type ScreenCodeOf<Class extends ScreenClass> = Extract<
  ScreenCode,
  `screen_${Class}_${string}`
>;

/**
 * What every finding of one class has.
 *
 * @category Tool poisoning screen
 */
export interface ScreenFindingBase<Class extends ScreenClass> {
  /** The class (the discriminant). */
  readonly class: Class;
  /** The stable code (`CODES[code].meaning` says what it means). */
  readonly code: ScreenCodeOf<Class>;
  /**
   * JSON Pointer (RFC 6901) into the tool definition as received: `/description`,
   * `/inputSchema/properties/path/description`, `/inputSchema/properties/mode/enum/2`.
   */
  readonly pointer: string;
  /**
   * `"key"` when the string is the last token of `pointer` itself (a property's name, a
   * `$defs` name), `"value"` when it is the string the pointer points at.
   */
  readonly on: "key" | "value";
}

/**
 * Hidden or deceptive text.
 *
 * @category Tool poisoning screen
 */
export interface HiddenFinding extends ScreenFindingBase<"hidden"> {
  /** The first offending code point, as `U+XXXX` (absent for name findings). */
  readonly codePoint?: string;
  /**
   * For Tag characters: the hidden message, decoded to ASCII (at most 256 characters, `…` when
   * cut). For the operator's eyes (`sluice inspect`): a report for a model or a log must not
   * carry it, it is the remote text itself.
   */
  readonly decoded?: string;
  /** For a homoglyph name: the allowed tool's name it imitates (the host's, not the server's). */
  readonly imitates?: string;
}

/**
 * Instruction markup or phrasing aimed at the model.
 *
 * @category Tool poisoning screen
 */
export type MarkupFinding = ScreenFindingBase<"markup">;

/**
 * Text about other tools or servers.
 *
 * @category Tool poisoning screen
 */
export interface ShadowingFinding extends ScreenFindingBase<"shadowing"> {
  /** For a named tool or server: which one, from the host's context (not the remote text). */
  readonly mentions?: string;
}

/**
 * A parameter or text shaped to carry the conversation, credentials or files out.
 *
 * @category Tool poisoning screen
 */
export type ExfiltrationFinding = ScreenFindingBase<"exfiltration">;

/**
 * One finding of the screen, discriminated by `class`.
 *
 * @category Tool poisoning screen
 */
export type ScreenFinding = HiddenFinding | MarkupFinding | ShadowingFinding | ExfiltrationFinding;

/**
 * A tool as its server listed it: only these fields are screened (the ones a model can see and a
 * snapshot pins). A catalog `ToolDefinition` and a raw `tools/list` entry both fit.
 *
 * @category Tool poisoning screen
 */
export interface ScreenableTool {
  /** The tool's name on the server. */
  readonly name: string;
  /** The server's `title`. */
  readonly title?: unknown;
  /** The server's description. */
  readonly description?: unknown;
  /** The input schema: every name, title, description and value at any depth. */
  readonly inputSchema?: unknown;
  /** The output schema, likewise. */
  readonly outputSchema?: unknown;
  /** The annotations (their `title` is shown by clients). */
  readonly annotations?: unknown;
  /** The `execution` object. */
  readonly execution?: unknown;
}

/**
 * What the screen knows besides the tool: the names it must not imitate or mention.
 *
 * @category Tool poisoning screen
 */
export interface ScreenContext {
  /**
   * The names of the tools of the host's other servers. Naming one is shadowing; looking like
   * one is a homoglyph.
   */
  readonly otherToolNames: readonly string[];
  /**
   * The names of the other tools of the same server. Text may name them (servers document their
   * own tools); a name that looks like one without being it is a homoglyph.
   */
  readonly sameServerToolNames?: readonly string[];
  /** The host's names of its other servers (ids, titles). Naming one is shadowing. */
  readonly serverNames?: readonly string[];
}
