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

/** Characters of a name token (MCP tool names are `[A-Za-z0-9_.-]`). */
const isNameChar = (code: number) =>
  (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) ||
  code === 95 || code === 45 || code === 46;

/** Words before or after a plain one-word name that make it a reference to a tool or server. */
const CUE_AFTER = new Set(["tool", "tools", "server", "servers", "function", "mcp"]);
const CUE_BEFORE = new Set(["call", "calling", "use", "using", "invoke", "invoking", "run"]);
const QUOTES = new Set(["`"]);

/**
 * The name tokens of a text with whether each reads as a reference: a name with a separator,
 * digit or hump (`send_email`, `list-issues`, `getFile`) always does; a plain word (`search`)
 * only in backticks or next to a cue word (`the search tool`, `call search`).
 */
function* references(text: string): Generator<string> {
  let start = -1;
  let previousWord = "";
  for (let index = 0; index <= text.length; index++) {
    const code = index < text.length ? text.charCodeAt(index) : 32;
    if (isNameChar(code)) {
      if (start < 0) start = index;
      continue;
    }
    if (start < 0) continue;
    // Trailing punctuation is not part of a name (`read_file.`).
    let end = index;
    while (end > start && (text[end - 1] === "." || text[end - 1] === "-")) end--;
    const token = text.slice(start, end);
    const plain = /^[a-z]+$/i.test(token);
    if (token !== "") {
      if (!plain) yield token;
      else {
        const quoted = QUOTES.has(text[start - 1] ?? "") && QUOTES.has(text[end] ?? "");
        let after = "";
        let at = index + 1;
        for (; at < text.length && /[A-Za-z]/.test(text[at]) && after.length <= 10; at++) {
          after += text[at];
        }
        // `server-side` is a word of its own, not a cue.
        if (text[at] === "-") after = "";
        if (quoted || CUE_AFTER.has(after.toLowerCase()) || CUE_BEFORE.has(previousWord)) {
          yield token;
        }
      }
      previousWord = token.toLowerCase();
    }
    start = -1;
  }
}

/**
 * The shadowing findings of one string: each other tool or server it names (once per name), and
 * instructions about other tools (once per code).
 *
 * @param text the string
 * @param words its words
 * @param index the names to look for
 * @param pointer where it is
 * @param on whether it is a key or a value
 */
export function shadowingFindings(
  text: string,
  words: readonly string[],
  index: MentionIndex,
  pointer: string,
  on: "key" | "value",
): ShadowingFinding[] {
  const findings: ShadowingFinding[] = [];
  const named = new Set<string>();
  if (index.tools.size > 0 || index.servers.size > 0) {
    for (const token of references(text)) {
      const lower = token.toLowerCase();
      for (
        const [map, code] of [
          [index.tools, "screen_shadowing_tool_name"],
          [index.servers, "screen_shadowing_server_name"],
        ] as const
      ) {
        const name = map.get(lower);
        if (name === undefined || named.has(`${code}:${name}`)) continue;
        named.add(`${code}:${name}`);
        findings.push({ class: "shadowing", code, pointer, on, mentions: name });
      }
    }
  }
  for (const code of PHRASES.match(words)) findings.push({ class: "shadowing", code, pointer, on });
  return findings;
}
