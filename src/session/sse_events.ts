/**
 * Server-sent events, parsed as text arrives: the data of each `message` event, whatever the
 * chunking (lines and events may span chunks; CRLF, CR and LF all end a line).
 *
 * @module
 */

/** Most characters of one event's data kept (a bigger event's data is dropped). */
const MAX_EVENT_CHARS = 1 << 20;

/** A push parser of one event stream. */
export class SseEvents {
  readonly #onData: (data: string) => void;
  #buffer = "";
  #data: string[] = [];
  #size = 0;
  #event = "message";

  /** @param onData called with the data of each `message` event */
  constructor(onData: (data: string) => void) {
    this.#onData = onData;
  }

  /** Reads the next piece of the stream's text. */
  push(text: string): void {
    const buffer = this.#buffer + text;
    // A trailing CR may be the first half of a CRLF: keep it for the next piece.
    const lines = buffer.split(/\r\n|\r(?!$)|\n/);
    this.#buffer = lines.pop()!.slice(0, MAX_EVENT_CHARS);
    for (const line of lines) this.#line(line);
  }

  #line(text: string): void {
    if (text === "") {
      if (this.#data.length > 0 && this.#event === "message" && this.#size <= MAX_EVENT_CHARS) {
        this.#onData(this.#data.join("\n"));
      }
      this.#data = [];
      this.#size = 0;
      this.#event = "message";
      return;
    }
    if (text.startsWith(":")) return; // a comment (keep-alive)
    const colon = text.indexOf(":");
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") {
      this.#size += value.length + 1;
      if (this.#size <= MAX_EVENT_CHARS) this.#data.push(value);
    } else if (field === "event") this.#event = value;
  }
}
