/**
 * Sensitive paths and secret files in a string: literals compared without case (ASCII letters
 * only, as a non-Unicode `/i` regular expression compares them), and `.env` only as its own token
 * (not `.environment`, `.env_file`). Every literal but `keychain` holds a `.`, `/` or `_`: a
 * string is read by `indexOf` from one of those to the next, and each literal is compared only
 * where its first such character would be, so most of a description is never looked at twice.
 *
 * @module
 */

/** The paths and files (lowercase). */
export const SENSITIVE_PATHS: readonly string[] = [
  "~/.ssh",
  ".ssh/",
  "id_rsa",
  "id_ed25519",
  "id_ecdsa",
  "id_dsa",
  "authorized_keys",
  "/etc/passwd",
  "/etc/shadow",
  ".aws/credentials",
  ".aws/config",
  ".npmrc",
  ".netrc",
  ".pypirc",
  ".git-credentials",
  ".kube/config",
  ".docker/config.json",
  ".gnupg",
  "mcp.json",
  "claude_desktop_config",
  ".bash_history",
  ".zsh_history",
  "wallet.dat",
  "keychain",
  ".pgpass",
];

/** `.env`, matched only when no letter, digit or `_` follows it. */
const ENV = ".env";

/** The characters a literal is found from. */
const ANCHORS = [".", "/", "_"] as const;

/** A literal and where in it its anchor is. */
interface Anchored {
  readonly literal: string;
  readonly offset: number;
  /** The character after its anchor (every literal has one): most places fail on it. */
  readonly second: number;
  /** Whether it is `.env` (its next character is checked). */
  readonly token: boolean;
}

/** The literals by anchor: each under the first anchor character it holds. */
const BY_ANCHOR: readonly (readonly [string, readonly Anchored[]])[] = (() => {
  const byAnchor = new Map<string, Anchored[]>(ANCHORS.map((anchor) => [anchor, []]));
  for (const literal of [...SENSITIVE_PATHS, ENV]) {
    let first = -1;
    for (let at = 0; at < literal.length && first < 0; at++) {
      if ((ANCHORS as readonly string[]).includes(literal[at])) first = at;
    }
    if (first < 0) continue; // `keychain`, looked for apart
    const second = literal.charCodeAt(first + 1);
    byAnchor.get(literal[first])!.push({ literal, offset: first, second, token: literal === ENV });
  }
  return [...byAnchor];
})();

/** Whether `code` is a literal's character `want` (lowercase), an ASCII letter in either case. */
const sameCharacter = (code: number, want: number) =>
  code === want || (want >= 97 && want <= 122 && code === want - 32);

/** Whether `text` at `at` is `literal` (lowercase), ASCII letters compared without case. */
function holdsAt(text: string, at: number, literal: string): boolean {
  if (at < 0 || at + literal.length > text.length) return false;
  for (let index = 0; index < literal.length; index++) {
    if (!sameCharacter(text.charCodeAt(at + index), literal.charCodeAt(index))) return false;
  }
  return true;
}

/** Whether the code is an ASCII letter, digit or `_`. */
const isWord = (code: number) =>
  (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) ||
  code === 95;

/** `keychain` in any case of its ASCII letters. */
const KEYCHAIN = /keychain/i;

/**
 * Whether the string names a sensitive path or secret file ({@link SENSITIVE_PATHS}, `.env`).
 *
 * @param text the string
 */
export function hasSensitivePath(text: string): boolean {
  for (let which = 0; which < BY_ANCHOR.length; which++) {
    const [anchor, literals] = BY_ANCHOR[which];
    for (let at = text.indexOf(anchor); at >= 0; at = text.indexOf(anchor, at + 1)) {
      const after = text.charCodeAt(at + 1);
      for (let index = 0; index < literals.length; index++) {
        const { literal, offset, second, token } = literals[index];
        // Most places fail on the character after the anchor: compared before the literal.
        if (!sameCharacter(after, second)) continue;
        const start = at - offset;
        if (!holdsAt(text, start, literal)) continue;
        const next = start + literal.length;
        if (!token || next >= text.length || !isWord(text.charCodeAt(next))) return true;
      }
    }
  }
  return KEYCHAIN.test(text);
}
