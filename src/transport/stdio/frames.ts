/**
 * Newline-delimited frames of a stdio server's stdout, bounded: the bytes of a line not yet
 * ended never grow past the frame cap (the line is refused as soon as it would), and each
 * complete line is handed on as its bytes.
 *
 * @module
 */

const NEWLINE = 0x0a;

/** Splits a byte stream into lines of at most `maxFrameBytes` bytes (the newline not counted). */
export class FrameReader {
  readonly #max: number;
  #parts: Uint8Array[] = [];
  #length = 0;

  /**
   * Creates a reader.
   *
   * @param maxFrameBytes the most bytes one line may have
   */
  constructor(maxFrameBytes: number) {
    this.#max = maxFrameBytes;
  }

  /**
   * Takes a chunk and returns the lines it completes, or `"too_large"` once a line passes the
   * cap (the reader is then of no further use).
   *
   * @param chunk bytes read from stdout
   */
  push(chunk: Uint8Array): Uint8Array[] | "too_large" {
    const lines: Uint8Array[] = [];
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      const piece = chunk.subarray(start, end < 0 ? chunk.length : end);
      if (this.#length + piece.length > this.#max) return "too_large";
      if (end < 0) {
        if (piece.length > 0) {
          this.#parts.push(piece.slice());
          this.#length += piece.length;
        }
        return lines;
      }
      lines.push(this.#take(piece));
      start = end + 1;
    }
  }

  #take(last: Uint8Array): Uint8Array {
    if (this.#parts.length === 0) return last;
    const line = new Uint8Array(this.#length + last.length);
    let offset = 0;
    for (const part of this.#parts) {
      line.set(part, offset);
      offset += part.length;
    }
    line.set(last, offset);
    this.#parts = [];
    this.#length = 0;
    return line;
  }
}
