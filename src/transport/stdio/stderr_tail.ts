/**
 * A stdio server's stderr, captured bounded: the last `max` bytes kept, every byte counted, and
 * read back as escaped text for the operator (never shown to a model).
 *
 * @module
 */

const decoder = new TextDecoder("utf-8", { fatal: false });

// C0 and C1 controls but tab and newline, DEL, bidi controls, zero-width and Tag characters.
const UNSAFE =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]|[\u{e0000}-\u{e007f}]/gu;

/**
 * `text` with every control, bidi, invisible and Tag character written as a visible `\u{...}`
 * escape: safe to print to a terminal or a log.
 *
 * @param text any text
 */
export function escapeForOperator(text: string): string {
  return text.replace(UNSAFE, (char) => `\\u{${char.codePointAt(0)!.toString(16)}}`);
}

/** The tail of a stream of bytes, bounded. */
export class StderrTail {
  readonly #max: number;
  #chunks: Uint8Array[] = [];
  #kept = 0;
  #total = 0;

  /**
   * Creates an empty tail.
   *
   * @param max the most bytes kept (0 keeps none)
   */
  constructor(max: number) {
    this.#max = max;
  }

  /** Every byte the server wrote to stderr, kept or not. */
  get totalBytes(): number {
    return this.#total;
  }

  /**
   * Adds a chunk, dropping the oldest bytes past the bound.
   *
   * @param chunk bytes read from stderr
   */
  push(chunk: Uint8Array): void {
    this.#total += chunk.length;
    if (this.#max === 0) return;
    const part = chunk.length > this.#max ? chunk.slice(chunk.length - this.#max) : chunk.slice();
    this.#chunks.push(part);
    this.#kept += part.length;
    while (this.#kept - this.#chunks[0].length >= this.#max) {
      this.#kept -= this.#chunks.shift()!.length;
    }
  }

  /** The kept tail as escaped text (at most `max` bytes of it, the oldest part cut). */
  text(): string {
    const bytes = new Uint8Array(this.#kept);
    let offset = 0;
    for (const chunk of this.#chunks) {
      bytes.set(chunk, offset);
      offset += chunk.length;
    }
    const start = Math.max(0, this.#kept - this.#max);
    return escapeForOperator(decoder.decode(bytes.subarray(start)));
  }
}
