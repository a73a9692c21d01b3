/**
 * The phrase matcher the heuristic rules share: a text becomes lowercase ASCII words, and a
 * phrase is a short sequence of word sets with bounded gaps. Matching is linear in the number of
 * words (each start tries each phrase that begins with that word, every phrase of bounded
 * length): no regular expression ever runs over remote text.
 *
 * @module
 */

/**
 * Characters NFKC turns into ASCII letters or digits: enclosed alphanumerics, Latin ligatures,
 * fullwidth forms, mathematical alphanumerics (U+1D400-1D7FF). Only a text holding one is
 * normalised: most non-ASCII text (an emoji in a description) has none.
 */
const COMPATIBLE = /[\u2460-\u24ff\ufb00-\ufb06\uff01-\uff5e]|\ud835[\udc00-\udfff]/;
const isLetter = (code: number) => (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
/** FNV-1a's offset basis: the hash of nothing. */
export const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 16777619;

/** One FNV-1a step: the hash of what `hash` hashed, followed by the character `code`. */
export const fnvStep = (hash: number, code: number): number => Math.imul(hash ^ code, FNV_PRIME);

/** The id of a hash: 30 bits, a small integer the engine keeps unboxed. */
export const idOf = (hash: number): number => hash & 0x3fffffff;

/**
 * The ids of the words read last ({@link scan}): one buffer, grown as needed and written over by
 * every read, so that reading a text allocates nothing per word. A {@link Words} holds it only
 * until the next read (the screen matches a text's words before it reads the next text).
 */
let scratch = new Int32Array(1024);

/** The id at `count` in the buffer, grown (and copied) when it is full. */
function put(count: number, id: number): number {
  if (count === scratch.length) {
    const grown = new Int32Array(scratch.length * 2);
    grown.set(scratch);
    scratch = grown;
  }
  scratch[count] = id;
  return count + 1;
}

/** Whether the last {@link scan} met a run among its `runs` (read right after it). */
let scannedRun = false;

/**
 * Reads the words of a text (see {@link wordsOf}) as ids into the buffer: a 30-bit FNV-1a hash
 * of each word's lowercase letters, so matching a phrase allocates no string per word. With
 * `strings`, the words themselves are also pushed there. With `runs`, also tells whether the id
 * of a whole run of ASCII letters and digits (lowercase, not split at humps or apostrophes) is
 * among them: `true` as well for a normalised text, whose runs are not the text's own.
 */
function scan(text: string, strings?: string[], runs?: ReadonlySet<number>): number {
  // A compatibility character is rare: the text is read again, normalised, only when one is met.
  const kept = strings?.length ?? 0;
  const first = read(text, false, strings, runs);
  if (first >= 0) return first;
  if (strings !== undefined) strings.length = kept;
  return read(text.normalize("NFKC"), true, strings, runs);
}

/** How many low bits of a run's id pick its slot in a set of runs' {@link slotsOf}. */
const RUN_SLOT_MASK = (1 << 12) - 1;
/** The slots of no runs. */
const NO_SLOTS = new Uint8Array(RUN_SLOT_MASK + 1);
/** The slots of each set of runs read with (made once per set: a screen has one). */
const RUN_SLOTS = new WeakMap<ReadonlySet<number>, Uint8Array>();
let lastRuns: ReadonlySet<number> | undefined;
let lastSlots: Uint8Array = NO_SLOTS;

/** A table by the low bits of an id: 1 where some id of `runs` has them. */
function slotsOf(runs: ReadonlySet<number>): Uint8Array {
  if (runs === lastRuns) return lastSlots;
  let slots = RUN_SLOTS.get(runs);
  if (slots === undefined) {
    slots = new Uint8Array(RUN_SLOT_MASK + 1);
    for (const id of runs) slots[id & RUN_SLOT_MASK] = 1;
    RUN_SLOTS.set(runs, slots);
  }
  lastRuns = runs;
  lastSlots = slots;
  return slots;
}

/** The end of the run of lowercase ASCII letters that starts at `index`. */
function lowercaseEnd(source: string, index: number): number {
  let end = index;
  while (true) {
    const code = source.charCodeAt(end);
    if (!(code >= 97 && code <= 122)) return end;
    end++;
  }
}

/** `hash` carried on (FNV-1a) over the characters of `source` from `from` up to `to`. */
function fnv(source: string, from: number, to: number, hash: number): number {
  for (let index = from; index < to; index++) {
    hash = Math.imul(hash ^ source.charCodeAt(index), FNV_PRIME);
  }
  return hash;
}

/**
 * Whether the character `code` at `index` ends a sentence: `;`, a line end, or `.`, `!` and `?`
 * before a space or the end (not in `a.b`, `e.g.x`, an address).
 */
function endsSentence(source: string, index: number, code: number): boolean {
  if (code === 59 || code === 10) return true;
  if (code !== 46 && code !== 33 && code !== 63) return false;
  const next = source.charCodeAt(index + 1);
  return Number.isNaN(next) || next === 32 || next === 10 || next === 9 || next === 13;
}

/**
 * {@link scan} over `source`: the count of ids written (whether a run was met left in
 * {@link scannedRun}), or -1 (before any word is kept) at a compatibility character.
 */
function read(
  source: string,
  normalized: boolean,
  strings: string[] | undefined,
  runs: ReadonlySet<number> | undefined,
): number {
  const runSlots = runs === undefined ? NO_SLOTS : slotsOf(runs);
  let count = 0;
  let hash = 0;
  let start = -1;
  let runHash = FNV_OFFSET;
  let inRun = false;
  let run = normalized;
  // Runs are hashed only while one may still be found among `runs`.
  let tracking = runs !== undefined && !run;
  // A word that continues after an apostrophe (`don't`): the part before it.
  let carried = "";
  const length = source.length;
  for (let index = 0; index <= length; index++) {
    const code = index < length ? source.charCodeAt(index) : -1;
    // Most characters are lowercase letters: the shortest path, a whole run at once.
    if (code >= 97 && code <= 122) {
      if (start < 0) {
        start = index;
        hash = FNV_OFFSET;
      }
      const end = lowercaseEnd(source, index + 1);
      hash = fnv(source, index, end, hash);
      if (tracking) {
        if (!inRun) {
          inRun = true;
          runHash = FNV_OFFSET;
        }
        runHash = fnv(source, index, end, runHash);
      }
      index = end - 1;
      continue;
    }
    const upper = code >= 65 && code <= 90;
    if (upper || (code >= 48 && code <= 57)) {
      const lower = upper ? code + 32 : code;
      if (tracking) {
        if (!inRun) {
          inRun = true;
          runHash = FNV_OFFSET;
        }
        runHash = Math.imul(runHash ^ lower, FNV_PRIME);
      }
      // A hump: `doNot` splits before `N` (not inside `API` or `HTTPServer`'s capitals).
      if (upper && start >= 0) {
        const previous = source.charCodeAt(index - 1);
        if (previous >= 97 && previous <= 122) {
          count = put(count, idOf(hash));
          strings?.push(carried + source.slice(start, index).toLowerCase());
          start = -1;
          carried = "";
        }
      }
      if (start < 0) {
        start = index;
        hash = FNV_OFFSET;
      }
      hash = Math.imul(hash ^ lower, FNV_PRIME);
      continue;
    }
    if (inRun) {
      inRun = false;
      const id = idOf(runHash);
      // Most runs are no name's: their slot is empty (a table read, not a set's lookup).
      if (runSlots[id & RUN_SLOT_MASK] !== 0 && runs!.has(id)) {
        run = true;
        tracking = false;
      }
    }
    if (!normalized && code >= 0x2460 && COMPATIBLE.test(source.slice(index, index + 2))) {
      return -1;
    }
    if ((code === 39 || code === 0x2019) && start >= 0 && isLetter(source.charCodeAt(index + 1))) {
      if (strings !== undefined) carried += source.slice(start, index).toLowerCase();
      start = index + 1;
      continue;
    }
    if (start >= 0) {
      count = put(count, idOf(hash));
      strings?.push(carried + source.slice(start, index).toLowerCase());
      start = -1;
      carried = "";
    }
    // A sentence ends: phrases and co-occurrences stay inside one.
    if (endsSentence(source, index, code) && count > 0 && scratch[count - 1] !== SENTENCE) {
      count = put(count, SENTENCE);
    }
  }
  scannedRun = run;
  return count;
}

/** The id between two sentences (`.`, `!` or `?` before a space, `;`, a line end): no word has it. */
export const SENTENCE = -1;

/**
 * The words of a text: lowercase runs of ASCII letters and digits, split at camelCase humps
 * and at every other character (so `do_not_tell` and `doNotTell` read as `do not tell`).
 * Apostrophes inside a word are dropped (`don't` is `dont`). Text with fullwidth, mathematical,
 * enclosed or ligature letters is NFKC-normalised first, so those read as ASCII.
 *
 * @param text any string
 */
export function wordsOf(text: string): string[] {
  const words: string[] = [];
  scan(text, words);
  return words;
}

/**
 * The ids of single words, as {@link readWords} gives them (for tables made when a module
 * loads, before any text is read: it uses the shared buffer).
 *
 * @param words lowercase words of ASCII letters and digits
 */
export function wordIds(words: readonly string[]): ReadonlySet<number> {
  return new Set(words.map((word) => {
    if (scan(word) !== 1) throw new Error(`not one word: ${word}`);
    return scratch[0];
  }));
}

/**
 * How many low bits of a word's id pick its slot in the tables below: 16,384 slots of one byte
 * (one bit per set, at most 8 sets; the screen has 6), 16 KiB a table.
 */
const SLOT_BITS = 14;
/** The mask of a slot's bits. */
export const SLOT_MASK = (1 << SLOT_BITS) - 1;

/**
 * For each word some set's rule can start with, by the low {@link SLOT_BITS} bits of its id:
 * the bits of those sets ({@link PhraseSet}: a phrase's first words; {@link CooccurrenceSet}:
 * the words of each rule's smallest group). Two words sharing a slot only make a set run for
 * nothing; a table read is a tenth of a map lookup, once per word of every text. Sets are made
 * when their modules load, before any text is read.
 */
const TRIGGERS = new Uint8Array(1 << SLOT_BITS);
/**
 * For each word a set looks up while it matches (a phrase's first words; every word of every
 * group of a co-occurrence), likewise by the low bits of its id: a word whose slot lacks the
 * set's bit is skipped with a table read instead of a map lookup.
 */
export const MEMBERS = new Uint8Array(1 << SLOT_BITS);
let nextBit = 1;

/** A new set's bit, with its trigger words and the words it looks up noted under it. */
export function register(triggers: Iterable<number>, members: Iterable<number>): number {
  if (nextBit > 0x80) throw new Error("more than 8 phrase and co-occurrence sets");
  const bit = nextBit;
  nextBit <<= 1;
  for (const word of triggers) TRIGGERS[word & SLOT_MASK] |= bit;
  for (const word of members) MEMBERS[word & SLOT_MASK] |= bit;
  return bit;
}

/**
 * A text's words as the sets read them: the ids ({@link wordsOf}'s words hashed, with
 * {@link SENTENCE} between sentences) and the bits of the sets that may match them, so a set
 * with none of its trigger words in the text is not run at all (one lookup per word in all).
 */
export interface Words {
  /** The ids, in the shared buffer: valid until the next text is read. */
  readonly ids: Int32Array;
  /** How many ids of `ids` are this text's. */
  readonly count: number;
  readonly sets: number;
  /**
   * Whether a run of the text's letters and digits is one of the `runs` it was read with (the
   * first runs of the names the shadowing rules look for), or may be: `true` when read without.
   */
  readonly run: boolean;
}

/** The words read last: one object, written over by each {@link readWords}, like its ids. */
const WORDS: { -readonly [Field in keyof Words]: Words[Field] } = {
  ids: scratch,
  count: 0,
  sets: 0,
  run: false,
};

/**
 * Reads a text's words for the sets ({@link Words}): valid until the next text is read (the
 * screen matches a text's words before it reads the next text).
 *
 * @param text any string
 * @param runs the ids ({@link runId}) of runs to tell about (a set not changed once read with:
 *   its slots are made once)
 */
export function readWords(text: string, runs?: ReadonlySet<number>): Words {
  const count = scan(text, undefined, runs);
  const ids = scratch;
  let sets = 0;
  for (let at = 0; at < count; at++) sets |= TRIGGERS[ids[at] & SLOT_MASK];
  const words = WORDS;
  words.ids = ids;
  words.count = count;
  words.sets = sets;
  words.run = runs === undefined || scannedRun;
  return words;
}

/**
 * The id of the first run of ASCII letters and digits of a name, lowercase (`send` for
 * `Send_Email`), as {@link readWords} compares it; `undefined` for a name with none.
 *
 * @param name a tool or server name
 */
export function runId(name: string): number | undefined {
  let hash = FNV_OFFSET;
  let found = false;
  for (let at = 0; at <= name.length; at++) {
    const code = at < name.length ? name.charCodeAt(at) : -1;
    const upper = code >= 65 && code <= 90;
    if (upper || (code >= 97 && code <= 122) || (code >= 48 && code <= 57)) {
      hash = fnvStep(hash, upper ? code + 32 : code);
      found = true;
    } else if (found) return idOf(hash);
  }
  return undefined;
}

/** One step of a phrase: a set of words (or a gap of up to `gap` arbitrary words). */
type Step =
  | { readonly kind: "word"; readonly words: ReadonlySet<number>; readonly optional: boolean }
  | { readonly kind: "gap"; readonly max: number };

/** A compiled phrase. */
export interface Phrase {
  /** The source, for tests and messages. */
  readonly source: string;
  readonly steps: readonly Step[];
}

/**
 * Compiles a phrase: space-separated steps, each `a|b|c` (one of these words), `[a|b]` (one of
 * them or nothing), `_N` (0 to N arbitrary words) or `$name` (a named word set, optional as
 * `[$name]`). The first step must be a required word set.
 *
 * @param source the phrase
 * @param sets the named word sets
 */
export function phrase(
  source: string,
  sets: Readonly<Record<string, readonly string[]>> = {},
): Phrase {
  const steps: Step[] = [];
  for (const token of source.split(/\s+/).filter((part) => part !== "")) {
    if (/^_\d$/.test(token)) {
      steps.push({ kind: "gap", max: Number(token.slice(1)) });
      continue;
    }
    const optional = token.startsWith("[") && token.endsWith("]");
    const body = optional ? token.slice(1, -1) : token;
    const words = body.split("|").flatMap((word) => {
      if (!word.startsWith("$")) return [word];
      const set = sets[word.slice(1)];
      if (set === undefined) throw new Error(`unknown word set ${word} in: ${source}`);
      return set;
    });
    const ids = words.map((word) => {
      if (scan(word) !== 1) throw new Error(`not one word: ${word} in ${source}`);
      return scratch[0];
    });
    steps.push({ kind: "word", words: new Set(ids), optional });
  }
  const first = steps[0];
  if (first === undefined || first.kind !== "word" || first.optional) {
    throw new Error(`a phrase starts with a required word: ${source}`);
  }
  return { source, steps };
}

/**
 * Whether `steps[step..]` match the first `count` of `words` from `at` on. Bounded: steps and
 * gaps are short.
 */
function matchesFrom(
  steps: readonly Step[],
  step: number,
  words: Int32Array,
  count: number,
  at: number,
): boolean {
  if (step === steps.length) return true;
  const current = steps[step];
  if (current.kind === "gap") {
    for (let skip = 0; skip <= current.max && at + skip <= count; skip++) {
      if (matchesFrom(steps, step + 1, words, count, at + skip)) return true;
      if (at + skip < count && words[at + skip] === SENTENCE) break;
    }
    return false;
  }
  if (at < count && current.words.has(words[at])) {
    if (matchesFrom(steps, step + 1, words, count, at + 1)) return true;
  }
  return current.optional && matchesFrom(steps, step + 1, words, count, at);
}

/** What a set found in a text with none of its phrases: one array, never written. */
export const NONE: readonly never[] = Object.freeze([]);

/**
 * A set of phrases indexed by their first words, so a text is read once.
 */
export class PhraseSet<Tag> {
  readonly #byFirst = new Map<number, { phrase: Phrase; tag: Tag }[]>();
  readonly #bit: number;

  /**
   * @param rules each phrase's source ({@link phrase}) with the tag a match reports
   * @param sets the named word sets the sources use
   */
  constructor(
    rules: readonly (readonly [string, Tag])[],
    sets: Readonly<Record<string, readonly string[]>> = {},
  ) {
    for (const [source, tag] of rules) {
      const compiled = phrase(source, sets);
      const first = compiled.steps[0];
      if (first.kind !== "word") continue;
      for (const word of first.words) {
        const list = this.#byFirst.get(word) ?? [];
        list.push({ phrase: compiled, tag });
        this.#byFirst.set(word, list);
      }
    }
    this.#bit = register(this.#byFirst.keys(), this.#byFirst.keys());
  }

  /**
   * The tags of the phrases found in `text` ({@link readWords}), each once, in order (an empty
   * array shared by every text with none).
   */
  match(text: Words): readonly Tag[] {
    if ((text.sets & this.#bit) === 0) return NONE;
    let found: Tag[] | undefined;
    const words = text.ids;
    const count = text.count;
    const bit = this.#bit;
    for (let at = 0; at < count; at++) {
      if ((MEMBERS[words[at] & SLOT_MASK] & bit) === 0) continue;
      const candidates = this.#byFirst.get(words[at]);
      if (candidates === undefined) continue;
      for (const { phrase: compiled, tag } of candidates) {
        if (found !== undefined && found.includes(tag)) continue;
        if (matchesFrom(compiled.steps, 1, words, count, at + 1)) (found ??= []).push(tag);
      }
    }
    return found ?? NONE;
  }
}
