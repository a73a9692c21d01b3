/**
 * A table of values by text that does not hash whole texts: a screen looks up every string of a
 * list (22,030 in the largest real one, 585,000 characters of descriptions), and a `Map` keyed
 * by a freshly parsed string reads every character of it to hash it. Here a text's key is its
 * length and five of its characters; texts that share a key are told apart by `===`, which
 * compares two strings' characters far faster than a hash reads them (or not at all, for two
 * of different lengths).
 *
 * @module
 */

/** The key of a text: its length and the characters at 0, 1/4, 1/2, 3/4 and its end. */
function keyOf(text: string): number {
  const length = text.length;
  if (length === 0) return 0;
  let key = Math.imul(length, 0x9e3779b1) ^ text.charCodeAt(0);
  key = Math.imul(key, 31) ^ text.charCodeAt(length >> 1);
  key = Math.imul(key, 31) ^ text.charCodeAt(length - 1);
  key = Math.imul(key, 31) ^ text.charCodeAt(length >> 2);
  key = Math.imul(key, 31) ^ text.charCodeAt((3 * length) >> 2);
  return key & 0x3fffffff;
}

/**
 * Values by text, for one screen: each key's texts and values side by side in one array
 * (`[text, value, text, value, ...]`), almost always one pair.
 */
export class TextTable<Value> {
  readonly #buckets = new Map<number, (string | Value)[]>();

  /** The value of `text`, or `undefined`. */
  get(text: string): Value | undefined {
    const bucket = this.#buckets.get(keyOf(text));
    if (bucket === undefined) return undefined;
    for (let at = 0; at < bucket.length; at += 2) {
      if (bucket[at] === text) return bucket[at + 1] as Value;
    }
    return undefined;
  }

  /** Sets the value of a text not in the table yet. */
  add(text: string, value: Value): void {
    const key = keyOf(text);
    const bucket = this.#buckets.get(key);
    if (bucket === undefined) this.#buckets.set(key, [text, value]);
    else bucket.push(text, value);
  }
}
