/**
 * The `Response` `secureFetch` hands back in place of the runtime's: the same status and
 * headers over the capped (or already read) body.
 *
 * @module
 */

const decoder = new TextDecoder();

/**
 * A `Response` over a new body that shows the original response's own `Headers` instead of a
 * copy: copying every header into a new `Response` was a measurable part of each request
 * (about 9 µs for five headers on Deno). `headers` is the original's, read-only like any
 * fetched response's; `clone()` keeps both.
 *
 * A body already read whole (an `ArrayBuffer`: the common JSON reply of declared length) is
 * not handed to the `Response` constructor: `json()`, `text()`, `arrayBuffer()` and `bytes()`
 * answer from the bytes at once, and only `body`, `blob()`, `formData()` or `clone()` build a
 * `Response` over them (with the content type alone in its own header list). Building one per
 * request, and reading the bytes back through its stream, cost about 5 µs of CPU per call
 * (docs/benchmarks.md).
 *
 * @category Transport
 */
export class CappedResponse extends Response {
  readonly #original: Response;
  /** The bytes read whole, until something reads them; `undefined` once read. */
  #bytes: ArrayBuffer | undefined;
  /** The `Response` over the bytes, once something needs a real body. */
  #over: Response | undefined;

  /**
   * Wraps `body` with the status and headers of `original`.
   *
   * @param body the body the caller reads (the capped stream, the bytes read, or `null`)
   * @param original the runtime's response, whose status and headers are kept
   */
  constructor(body: BodyInit | null, original: Response) {
    const read = body instanceof ArrayBuffer;
    const type = read ? null : original.headers.get("content-type");
    super(read ? null : body, {
      status: original.status,
      statusText: original.statusText,
      ...(type === null ? {} : { headers: [["content-type", type]] }),
    });
    this.#original = original;
    if (read) this.#bytes = body;
  }

  /** The original response's headers. */
  override get headers(): Headers {
    return this.#original.headers;
  }

  /**
   * The `Response` over the bytes, built the first time something needs a real body; without
   * bytes waiting, `undefined` (this one's own body is the body then).
   */
  #holder(): Response | undefined {
    if (this.#over === undefined && this.#bytes !== undefined) {
      const type = this.#original.headers.get("content-type");
      this.#over = new Response(
        this.#bytes,
        type === null ? {} : { headers: { "content-type": type } },
      );
      this.#bytes = undefined;
    }
    return this.#over;
  }

  /** The bytes, taken by a read that needs no `Response`; `undefined` otherwise. */
  #take(): ArrayBuffer | undefined {
    const bytes = this.#bytes;
    if (bytes === undefined) return undefined;
    this.#bytes = undefined;
    this.#taken = true;
    return bytes;
  }

  /** Set once the bytes were taken without a `Response`: the body is used. */
  #taken = false;

  /** The rejection of a second read, as a used body's. */
  #used(): Promise<never> | undefined {
    return this.#taken ? Promise.reject(new TypeError("Body already consumed.")) : undefined;
  }

  /** The body as a stream. */
  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    return this.#holder()?.body ?? super.body;
  }

  /** Whether the body was read. */
  override get bodyUsed(): boolean {
    if (this.#bytes !== undefined) return false;
    return this.#taken || (this.#over?.bodyUsed ?? super.bodyUsed);
  }

  /** The body parsed as JSON. */
  override json(): Promise<unknown> {
    const bytes = this.#take();
    if (bytes === undefined) return this.#used() ?? this.#over?.json() ?? super.json();
    try {
      return Promise.resolve(JSON.parse(decoder.decode(bytes)));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The body as text. */
  override text(): Promise<string> {
    const bytes = this.#take();
    if (bytes !== undefined) return Promise.resolve(decoder.decode(bytes));
    return this.#used() ?? this.#over?.text() ?? super.text();
  }

  /** The body's bytes. */
  override arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = this.#take();
    if (bytes !== undefined) return Promise.resolve(bytes);
    return this.#used() ?? this.#over?.arrayBuffer() ?? super.arrayBuffer();
  }

  /** The body's bytes as a `Uint8Array`. */
  override bytes(): Promise<Uint8Array<ArrayBuffer>> {
    const bytes = this.#take();
    if (bytes !== undefined) return Promise.resolve(new Uint8Array(bytes));
    return this.#used() ?? this.#over?.bytes() ?? super.bytes();
  }

  /** The body as a `Blob` of the original's content type. */
  override blob(): Promise<Blob> {
    return this.#used() ?? this.#holder()?.blob() ?? super.blob();
  }

  /** The body as form data. */
  override formData(): Promise<FormData> {
    return this.#used() ?? this.#holder()?.formData() ?? super.formData();
  }

  /** A copy over a copy of the body, with the same headers. */
  override clone(): Response {
    if (this.#taken) throw new TypeError("Body already consumed.");
    const holder = this.#holder();
    const body = holder === undefined ? super.clone().body : holder.clone().body;
    return new CappedResponse(body, this.#original);
  }
}
