/**
 * A table of values by text that does not hash whole texts: a screen looks up every string of a
 * list (22,030 in the largest real one, 585,000 characters of descriptions), and a `Map` keyed
 * by a freshly parsed string reads every character of it to hash it. Here a text's key is its
 * length and five of its characters, and the text found under it is compared with `===`, which
 * compares two strings' characters far faster than a hash reads them (or not at all, for two
 * of different lengths). A text whose key another text has is kept by a plain `Map`: rare (25
 * of the 1,822 distinct strings of the largest real list).
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
 * Values by text, for one screen: the first text of each key and its value in two maps (no
 * array per text), the rare texts that share a key with another in a third.
 */
export class TextTable<Value> {
  readonly #texts = new Map<number, string>();
  readonly #values = new Map<number, Value>();
  #shared: Map<string, Value> | undefined;

  /** The value of `text`, or `undefined`. */
  get(text: string): Value | undefined {
    const key = keyOf(text);
    if (this.#texts.get(key) === text) return this.#values.get(key);
    return this.#shared?.get(text);
  }

  /** Sets the value of a text not in the table yet. */
  add(text: string, value: Value): void {
    const key = keyOf(text);
    if (!this.#texts.has(key)) {
      this.#texts.set(key, text);
      this.#values.set(key, value);
    } else (this.#shared ??= new Map()).set(text, value);
  }
}
