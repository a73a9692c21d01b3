/**
 * The pinned path of `secureFetch`: the runtime's pinning resources opened at the first pinned
 * request and released when none is in flight, and a missing Deno permission turned into
 * `transport_permission_denied`.
 *
 * @module
 */
import { TransportError } from "./errors.ts";
import type { PinnedConnector, PinnedTarget, RuntimePinning } from "./pinning.ts";

// Statuses whose Response may not carry a body, and so cannot be re-wrapped with one.
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

/** Calls `release` once the response body ends, fails or is cancelled (at once without one). */
function releaseAfterBody(response: Response, release: () => void): Response {
  const body = response.body;
  if (
    body === null || response.type === "opaqueredirect" || NULL_BODY_STATUS.has(response.status)
  ) {
    release();
    return response;
  }
  const reader = body.getReader();
  const watched = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          release();
          controller.close();
        } else {
          controller.enqueue(value);
        }
      } catch (error) {
        release();
        controller.error(error);
      }
    },
    cancel(reason) {
      release();
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
  return new Response(watched, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/**
 * The pinned path of one `secureFetch` function: opens the runtime's resources at the first
 * pinned request and closes them when no pinned request or body is in flight any more, so a
 * function that is simply dropped holds no listener or socket. Connections are reused between
 * requests that overlap, and between all requests while a {@link PinnedFetch.hold} is taken
 * (`connect()` takes one for the connection's lifetime); a request that starts after everything
 * was released opens fresh ones.
 *
 * @category Transport
 */
export class PinnedFetch {
  readonly #pinning: RuntimePinning;
  readonly #caCerts: readonly string[] | undefined;
  #open: PinnedConnector | undefined;
  #active = 0;

  /**
   * @param pinning the runtime's mechanism
   * @param caCerts PEM certificates trusted besides the system roots
   */
  constructor(pinning: RuntimePinning, caCerts: readonly string[] | undefined) {
    this.#pinning = pinning;
    this.#caCerts = caCerts;
  }

  /**
   * Whether a request goes the pinned way: always for a name; for an IP literal (nothing to pin)
   * only when `caCerts` must be trusted.
   *
   * @param isName whether the URL's host is a name
   */
  applies(isName: boolean): boolean {
    return isName || this.#caCerts !== undefined;
  }

  /**
   * Keeps the resources open (once opened) until the returned function is called, so requests
   * in a row reuse one connection instead of a new handshake each.
   *
   * @returns the release function; calls after the first do nothing
   */
  hold(): () => void {
    this.#active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#active--;
      if (this.#active === 0 && this.#open !== undefined) {
        const open = this.#open;
        this.#open = undefined;
        open.close().catch(() => {});
      }
    };
  }

  /**
   * Sends `request` pinned to `target`.
   *
   * @param request the prepared request
   * @param target the approved destination
   * @returns the response, whose body releases the resources when it ends
   */
  async fetch(request: Request, target: PinnedTarget): Promise<Response> {
    const release = this.hold();
    try {
      this.#open ??= this.#pinning.open(
        this.#caCerts === undefined ? {} : { caCerts: this.#caCerts },
      );
      return releaseAfterBody(await this.#open.fetch(request, target), release);
    } catch (error) {
      release();
      const flags = (error as { pinningAllowNet?: unknown }).pinningAllowNet;
      if (typeof flags !== "string") throw error;
      throw new TransportError(
        "transport_permission_denied",
        "Deno refused network access for DNS pinning: the connection goes to the address the " +
          `check approved (https through a proxy on 127.0.0.1), so also allow --allow-net=${flags}, ` +
          "or set dnsPinning: false (see docs/permissions.md).",
      );
    }
  }
}
