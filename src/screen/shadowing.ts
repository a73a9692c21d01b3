/**
 * Shadowing: a tool's text that names another server's tool or another server, or tells the
 * model how to use other tools. Sources: Invariant Labs' tool-shadowing attack (a tool that
 * rewrites what another server's `send_email` sends), MCPTox's function-hijacking category,
 * Snyk agent-scan's cross-server tool references.
 *
 * @module
 */
import type { ScreenCodeOf, ShadowingFinding } from "./findings.ts";
import { phrase, PhraseSet } from "./phrases.ts";

const SETS = {
  tool: ["tool", "tools", "function", "functions", "server", "servers", "integration", "plugin"],
  use: [
    "use",
    "uses",
    "using",
    "call",
    "calls",
    "calling",
    "invoke",
    "invoking",
    "run",
    "running",
    "execute",
    "executing",
    "send",
    "sending",
  ],
  other: ["other", "another", "different", "every", "all", "any", "each"],
};

const RULES: readonly (readonly [string, ScreenCodeOf<"shadowing">])[] = [
  [
    "when|while|whenever|if this|the tool|server|function is|are available|present|loaded|installed|enabled|active|connected",
    "screen_shadowing_instruction",
  ],
  [
    "$other [other] $tool _2 must|should|shall|needs|need|will|has|have",
    "screen_shadowing_instruction",
  ],
  [
    "before|after|whenever|when|instead [of] $use $other [other] $tool",
    "screen_shadowing_instruction",
  ],
  [
    "$use [this|our|the] [tool] instead|rather of|than _2 $other [other] $tool",
    "screen_shadowing_instruction",
  ],
  ["not|never|dont use|call|invoke|trust|run $other [other] $tool", "screen_shadowing_instruction"],
  [
    "$other other|old|legacy|original $tool _2 is|are deprecated|broken|unsafe|malicious|compromised|disabled|insecure|outdated|unreliable",
    "screen_shadowing_instruction",
  ],
  [
    "this tool replaces|supersedes|overrides|shadows|intercepts|hijacks|wraps",
    "screen_shadowing_instruction",
  ],
  [
    "redirect|forward|route|reroute|divert _3 all|every|each|any _3 emails|email|messages|message|requests|request|calls|payments|payment|transactions|transfers|data|funds|traffic",
    "screen_shadowing_instruction",
  ],
  [
    "always|also|additionally|must|secretly|silently _2 add|include|insert|put|set _5 bcc|cc|recipient|recipients|copy",
    "screen_shadowing_instruction",
  ],
  ["send|sent|forward|forwarded _2 copy|copies _3 to", "screen_shadowing_instruction"],
  [
    "all|every|each|any emails|messages|email|message|payments|payment|transfers|transfer _3 must|should|shall|will be sent|forwarded|delivered|routed|redirected|copied to",
    "screen_shadowing_instruction",
  ],
  ["always|also|must|additionally bcc|cc", "screen_shadowing_instruction"],
  [
    "change|replace|set|override|swap _3 recipient|recipients|destination|beneficiary|payee|iban|wallet _2 to",
    "screen_shadowing_instruction",
  ],
];

const PHRASES = new PhraseSet(RULES.map(([source, code]) => [phrase(source, SETS), code] as const));

/** The names a text must not mention, prepared once per screen. */
export interface MentionIndex {
  /** Lowercase tool names of other servers, the same server's names removed. */
  readonly tools: ReadonlyMap<string, string>;
  /** Lowercase server names. */
  readonly servers: ReadonlyMap<string, string>;
}

/**
 * Prepares the names to look for.
 *
 * @param otherToolNames the host's other servers' tools
 * @param sameServerToolNames the same server's tools (text may name these)
 * @param serverNames the host's other servers
 * @param ownName this tool's own name
 */
export function mentionIndex(
  otherToolNames: readonly string[],
  sameServerToolNames: readonly string[],
  serverNames: readonly string[],
  ownName: string,
): MentionIndex {
  const own = new Set([ownName, ...sameServerToolNames].map((name) => name.toLowerCase()));
  const index = (names: readonly string[]) => {
    const map = new Map<string, string>();
    for (const name of names) {
      const lower = name.toLowerCase();
      if (lower.length >= 3 && !own.has(lower)) map.set(lower, name);
    }
    return map;
  };
  return { tools: index(otherToolNames), servers: index(serverNames) };
}

/** A shadowing finding before it is placed (no pointer yet). */
export type ShadowingMark = Omit<ShadowingFinding, "pointer" | "on">;

/** What separates name tokens: MCP tool names are `[A-Za-z0-9_.-]` (one linear class). */
const NOT_NAME = /[^a-z0-9_.-]+/;
/** Words after or before a plain one-word name that make it a reference to a tool or server. */
const CUE_AFTER = new Set(["tool", "tools", "server", "servers", "function", "mcp"]);
const CUE_BEFORE = new Set(["call", "calling", "use", "using", "invoke", "invoking", "run"]);
const WORD_AFTER = /^\s+([a-z]{1,10})(?![a-z-])/;
const WORD_BEFORE = /([a-z]{1,10})\s+$/;

/**
 * Whether a name token at `start..end` of the lowercased text reads as a reference: a name with a
 * separator or digit (`send_email`, `list-issues`) always does; a plain word (`search`) only in
 * backticks or next to a cue word (`the search tool`, `call search`).
 */
function isReference(lower: string, token: string, start: number): boolean {
  if (!/^[a-z]+$/.test(token)) return true;
  const end = start + token.length;
  if (lower[start - 1] === "`" && lower[end] === "`") return true;
  const after = WORD_AFTER.exec(lower.slice(end, end + 16))?.[1];
  if (after !== undefined && CUE_AFTER.has(after)) return true;
  const before = WORD_BEFORE.exec(lower.slice(Math.max(0, start - 16), start))?.[1];
  return before !== undefined && CUE_BEFORE.has(before);
}

/** Every place `token` starts as a whole token of `lower`. */
function* placesOf(lower: string, token: string): Generator<number> {
  const isName = (c: string | undefined) => c !== undefined && /[a-z0-9_.-]/.test(c);
  for (let at = lower.indexOf(token); at >= 0; at = lower.indexOf(token, at + 1)) {
    if (!isName(lower[at - 1]) && !/[a-z0-9_]/.test(lower[at + token.length] ?? " ")) yield at;
  }
}

/**
 * The shadowing marks of one string: each other tool or server it names (once per name), and
 * instructions about other tools (once).
 *
 * @param text the string
 * @param words its words
 * @param index the names to look for
 */
export function shadowingMarks(
  text: string,
  words: readonly string[],
  index: MentionIndex,
): ShadowingMark[] {
  const marks: ShadowingMark[] = [];
  if (index.tools.size > 0 || index.servers.size > 0) {
    const lower = text.toLowerCase();
    const named = new Set<string>();
    const maps = [
      [index.tools, "screen_shadowing_tool_name"],
      [index.servers, "screen_shadowing_server_name"],
    ] as const;
    for (const piece of lower.split(NOT_NAME)) {
      // Trailing punctuation is not part of a name (`read_file.`).
      let length = piece.length;
      while (length > 0 && (piece[length - 1] === "." || piece[length - 1] === "-")) length--;
      const token = length === piece.length ? piece : piece.slice(0, length);
      for (const [map, code] of maps) {
        const name = map.get(token);
        if (name === undefined || named.has(`${code}:${name}`)) continue;
        // A hit is rare: only then is its place looked up, for the cue words around it.
        for (const at of placesOf(lower, token)) {
          if (!isReference(lower, token, at)) continue;
          named.add(`${code}:${name}`);
          marks.push({ class: "shadowing", code, mentions: name });
          break;
        }
      }
    }
  }
  for (const code of PHRASES.match(words)) marks.push({ class: "shadowing", code });
  return marks;
}
