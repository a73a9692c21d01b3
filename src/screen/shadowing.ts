/**
 * Shadowing: a tool's text that names another server's tool or another server, or tells the
 * model how to use other tools. Sources: Invariant Labs' tool-shadowing attack (a tool that
 * rewrites what another server's `send_email` sends), MCPTox's function-hijacking category,
 * Snyk agent-scan's cross-server tool references.
 *
 * @module
 */
import type { ScreenCodeOf, ShadowingFinding } from "./findings.ts";
import { CooccurrenceSet } from "./cooccurrence.ts";
import { FNV_OFFSET, fnvStep, idOf, PhraseSet, runId, type Words } from "./phrases.ts";

const SETS = {
  tool: ["tool", "tools", "function", "functions", "server", "servers", "integration", "plugin"],
  use:
    "use uses using call calls calling invoke invoking run running execute executing send sending"
      .split(" "),
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

const PHRASES = new PhraseSet(RULES, SETS);

/** Rewordings: other tools, and what to do about them, close together in one sentence. */
const TOGETHER = new CooccurrenceSet(
  [
    "any|every|all|other|another|similar + $tool|integrations|plugins + preferred|prefer|instead|rather|route|redirect|recipients|recipient|destination|beneficiary|outdated|deprecated|broken|unreliable|unsafe|rely",
  ].map((source) => [source, "screen_shadowing_instruction"] as const),
  SETS,
);

/** The names a text must not mention, prepared once per screen. */
export interface MentionIndex {
  /** Lowercase tool names of other servers, the same server's names removed. */
  readonly tools: ReadonlyMap<string, string>;
  /** Lowercase server names. */
  readonly servers: ReadonlyMap<string, string>;
  /** The ids ({@link idOf}) of every key of both: a token whose id is not here is no name. */
  readonly ids: ReadonlySet<number>;
  /**
   * The ids of each key's first run of letters and digits ({@link runId}): a text with none of
   * these runs names none of them (`undefined` when a key has no such run: every text is read).
   */
  readonly firstRuns: ReadonlySet<number> | undefined;
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
  const tools = index(otherToolNames);
  const servers = index(serverNames);
  const ids = new Set<number>();
  let firstRuns: Set<number> | undefined = new Set<number>();
  for (const name of [...tools.keys(), ...servers.keys()]) {
    let hash = FNV_OFFSET;
    for (let at = 0; at < name.length; at++) hash = fnvStep(hash, name.charCodeAt(at));
    ids.add(idOf(hash));
    const run = runId(name);
    if (run === undefined) firstRuns = undefined;
    else firstRuns?.add(run);
  }
  return { tools, servers, ids, firstRuns };
}

/** A shadowing finding before it is placed (no pointer yet). */
export type ShadowingMark = Omit<ShadowingFinding, "pointer" | "on">;

/** The marks of a string that names nothing: one array, never written. */
const NO_MARKS: readonly ShadowingMark[] = Object.freeze([]);

/** Words after or before a plain one-word name that make it a reference to a tool or server. */
const CUE_AFTER = new Set(["tool", "tools", "server", "servers", "function", "mcp"]);
const CUE_BEFORE = new Set(["call", "calling", "use", "using", "invoke", "invoking", "run"]);
const WORD_AFTER = /^\s+([a-z]{1,10})(?![a-z-])/i;
const WORD_BEFORE = /([a-z]{1,10})\s+$/i;

/**
 * Whether a name token at `start..end` of the text reads as a reference: a name with a separator
 * or digit (`send_email`, `list-issues`) always does; a plain word (`search`) only in backticks
 * or next to a cue word (`the search tool`, `call search`).
 */
function isReference(text: string, token: string, start: number, end: number): boolean {
  if (!/^[a-z]+$/.test(token)) return true;
  if (text[start - 1] === "`" && text[end] === "`") return true;
  const after = WORD_AFTER.exec(text.slice(end, end + 16))?.[1]?.toLowerCase();
  if (after !== undefined && CUE_AFTER.has(after)) return true;
  const before = WORD_BEFORE.exec(text.slice(Math.max(0, start - 16), start))?.[1]?.toLowerCase();
  return before !== undefined && CUE_BEFORE.has(before);
}

/** A character of a name token, lowercased (MCP tool names are `[A-Za-z0-9_.-]`), or -1. */
function nameCode(code: number): number {
  if (code >= 65 && code <= 90) return code + 32;
  const fits = (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 95 ||
    code === 45 || code === 46;
  return fits ? code : -1;
}

/** The codes of a named tool and of a named server, with where their names are. */
const NAMED = [
  ["tools", "screen_shadowing_tool_name"],
  ["servers", "screen_shadowing_server_name"],
] as const;

/**
 * Notes the tool or server the token at `start..end` of the text names, if it reads as a
 * reference, once per name and code.
 */
function noteName(
  text: string,
  start: number,
  end: number,
  index: MentionIndex,
  marks: ShadowingMark[],
): void {
  const token = text.slice(start, end).toLowerCase();
  for (const [field, code] of NAMED) {
    const name = index[field].get(token);
    if (name === undefined) continue;
    if (marks.some((mark) => mark.code === code && mark.mentions === name)) continue;
    if (!isReference(text, token, start, end)) continue;
    marks.push({ class: "shadowing", code, mentions: name });
  }
}

/**
 * The shadowing marks of one string: each other tool or server it names (once per name), and
 * instructions about other tools (once).
 *
 * @param text the string
 * @param words its words (`readWords`)
 * @param index the names to look for
 */
export function shadowingMarks(
  text: string,
  words: Words,
  index: MentionIndex,
): readonly ShadowingMark[] {
  // Made only for a string that names something (most name nothing, and share `NO_MARKS`).
  let marks: ShadowingMark[] | undefined;
  // A name is a whole token, so its first run is a whole run of the text: none, no name.
  if (index.ids.size > 0 && words.run) {
    // One pass: each token is hashed as it is read; only a token whose id is a name's is cut out.
    let start = -1;
    let hash = FNV_OFFSET;
    let kept = -1; // where the token ends without trailing `.` and `-` (`read_file.`)
    let keptHash = 0;
    for (let at = 0; at <= text.length; at++) {
      const code = at < text.length ? nameCode(text.charCodeAt(at)) : -1;
      if (code >= 0) {
        if (start < 0) {
          start = at;
          hash = FNV_OFFSET;
        }
        hash = fnvStep(hash, code);
        if (code !== 45 && code !== 46) {
          kept = at + 1;
          keptHash = hash;
        }
        continue;
      }
      if (start >= 0 && kept > start && index.ids.has(idOf(keptHash))) {
        noteName(text, start, kept, index, marks ??= []);
      }
      start = -1;
    }
  }
  const phrases = PHRASES.match(words);
  const together = TOGETHER.match(words);
  if (phrases.length === 0 && together.length === 0) return marks ?? NO_MARKS;
  marks ??= [];
  for (const code of new Set([...phrases, ...together])) {
    marks.push({ class: "shadowing", code });
  }
  return marks;
}
