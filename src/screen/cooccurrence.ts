/**
 * Co-occurrences: word sets that must each have a word close together in one sentence, in any
 * order (rewordings the phrases of `phrases.ts` miss), matched over a text's words in one pass.
 *
 * @module
 */
import { MEMBERS, NONE, phrase, register, SENTENCE, SLOT_MASK, type Words } from "./phrases.ts";

/** How close (in words) the groups of a co-occurrence must be. */
export const COOCCURRENCE_WINDOW = 12;

/** A co-occurrence: word sets that must each have a word close together in one sentence. */
export interface Cooccurrence {
  /** The source, for tests and messages. */
  readonly source: string;
  readonly groups: readonly ReadonlySet<number>[];
}

/**
 * Compiles a co-occurrence: groups separated by ` + `, each `a|b|$set` as in {@link phrase}.
 *
 * @param source the groups
 * @param sets the named word sets
 */
export function cooccurrence(
  source: string,
  sets: Readonly<Record<string, readonly string[]>> = {},
): Cooccurrence {
  const groups = source.split(" + ").map((group) => {
    const { steps } = phrase(group.trim(), sets);
    const [step] = steps;
    if (steps.length !== 1 || step.kind !== "word") throw new Error(`one word set: ${group}`);
    return step.words;
  });
  return { source, groups };
}

/**
 * Co-occurrences indexed by their words: a text is read once, each word noting where it met
 * the groups it belongs to, the notes cleared at each sentence end.
 */
export class CooccurrenceSet<Tag> {
  readonly #byWord = new Map<number, [rule: number, group: number][]>();
  readonly #sizes: number[] = [];
  /** Where each rule's places start in one flat array (one more entry: the total). */
  readonly #offsets: number[] = [0];
  /** Where each group was last met, by rule offset + group, and the epoch each rule was cleared in. */
  readonly #places: number[] = [];
  readonly #cleared: number[] = [];
  #epoch = 0;
  readonly #tags: Tag[] = [];
  readonly #bit: number;

  /**
   * @param rules each co-occurrence's source ({@link cooccurrence}) with the tag a match reports
   * @param sets the named word sets the sources use
   */
  constructor(
    rules: readonly (readonly [string, Tag])[],
    sets: Readonly<Record<string, readonly string[]>> = {},
  ) {
    const triggers: number[] = [];
    rules.forEach(([source, tag], index) => {
      const rule = cooccurrence(source, sets);
      // Every group must be met: the smallest one's words alone tell whether it can be.
      triggers.push(...rule.groups.reduce((a, b) => b.size < a.size ? b : a));
      this.#sizes.push(rule.groups.length);
      this.#offsets.push(this.#offsets[index] + rule.groups.length);
      this.#cleared.push(0);
      for (let group = 0; group < rule.groups.length; group++) this.#places.push(-Infinity);
      this.#tags.push(tag);
      rule.groups.forEach((group, bit) => {
        for (const word of group) {
          const list = this.#byWord.get(word) ?? [];
          list.push([index, bit]);
          this.#byWord.set(word, list);
        }
      });
    });
    this.#bit = register(triggers, this.#byWord.keys());
  }

  /**
   * The tags of the co-occurrences found in `text` ({@link readWords}), each once, in order:
   * every group of a rule met within {@link COOCCURRENCE_WINDOW} words of one sentence (an
   * empty array shared by every text with none).
   */
  match(text: Words): readonly Tag[] {
    if ((text.sets & this.#bit) === 0) return NONE;
    let found: Tag[] | undefined;
    const words = text.ids;
    const count = text.count;
    // Each sentence of each call is a new epoch: a rule's places are cleared when it is first
    // met in one (the buffers are the set's own; matching is synchronous).
    const places = this.#places;
    const cleared = this.#cleared;
    let sentence = ++this.#epoch;
    const bit = this.#bit;
    for (let at = 0; at < count; at++) {
      const word = words[at];
      if (word === SENTENCE) {
        sentence = ++this.#epoch;
        continue;
      }
      if ((MEMBERS[word & SLOT_MASK] & bit) === 0) continue;
      const entries = this.#byWord.get(word);
      if (entries === undefined) continue;
      for (const [rule, group] of entries) {
        const start = this.#offsets[rule];
        const end = this.#offsets[rule + 1];
        if (cleared[rule] !== sentence) {
          for (let slot = start; slot < end; slot++) places[slot] = -Infinity;
          cleared[rule] = sentence;
        }
        places[start + group] = at;
        let all = true;
        for (let slot = start; slot < end && all; slot++) {
          all = at - places[slot] < COOCCURRENCE_WINDOW;
        }
        const tag = this.#tags[rule];
        if (all && !(found !== undefined && found.includes(tag))) (found ??= []).push(tag);
      }
    }
    return found ?? NONE;
  }
}
