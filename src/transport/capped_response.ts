/**
 * The `Response` `secureFetch` hands back in place of the runtime's: the same status and
 * headers over the capped (or already read) body.
 *
 * @module
 */

/**
 * A `Response` over a new body that shows the original response's own `Headers` instead of a
 * copy: copying every header into a new `Response` was a measurable part of each request
 * (about 9 µs for five headers on Deno). Its own header list holds the content type alone, for
 * `blob()` and `formData()`; `headers` is the original's, read-only like any fetched
 * response's; `clone()` keeps both.
 *
 * @category Transport
 */
export class CappedResponse extends Response {
  readonly #original: Response;

  /**
   * Wraps `body` with the status and headers of `original`.
   *
   * @param body the body the caller reads (the capped stream, the bytes read, or `null`)
   * @param original the runtime's response, whose status and headers are kept
   */
  constructor(body: BodyInit | null, original: Response) {
    const type = original.headers.get("content-type");
    super(body, {
      status: original.status,
      statusText: original.statusText,
      ...(type === null ? {} : { headers: [["content-type", type]] }),
    });
    this.#original = original;
  }

  /** The original response's headers. */
  override get headers(): Headers {
    return this.#original.headers;
  }

  /** A copy over a copy of the body, with the same headers. */
  override clone(): Response {
    return new CappedResponse(super.clone().body, this.#original);
  }
}
