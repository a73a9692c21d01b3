/**
 * The response body as the caller gets it, under the byte cap and the request's deadline. A body
 * whose length is declared (and within the cap) is read whole in one native read; any other body
 * (chunked JSON, endless SSE streams) is counted while it streams and cut off at the cap or the
 * deadline, whichever comes first.
 *
 * @module
 */
import { type Deadline, untilAborted } from "../deadline.ts";
import { TransportError } from "./errors.ts";

/**
 * How a body reports a failure of the underlying stream, or of the deadline signal (whose
 * abort it is given), as a transport error.
 *
 * @category Transport
 */
export type ToTransportError = (error: unknown) => TransportError;

const tooLarge = (maxBytes: number): TransportError =>
  new TransportError(
    "transport_response_too_large",
    `The response body exceeded ${maxBytes} bytes: raise maxResponseBytes.`,
  );

/**
 * Reads a body whose `Content-Length` the caller has checked to be within `maxBytes`, in one
 * native read (no JavaScript per chunk), raced against `signal` when one is given: for a fetch
 * that may ignore it (the runtime's own fetch cuts its body off when its signal aborts, so it
 * needs no race). The runtime's HTTP framing ends the body at the declared length; the cap is
 * checked again on the bytes actually read, so a body that somehow exceeds it is still refused.
 *
 * @param response the response, its body not yet read
 * @param maxBytes the byte cap
 * @param signal the request's deadline signal, when the fetch may not honour it
 * @returns the whole body
 * @throws {TransportError} `transport_response_too_large` over the cap; a read that fails or
 *   is cut off by `signal` rejects with the runtime's error or the signal's reason, for the
 *   caller to classify
 *
 * @category Transport
 */
export async function readDeclaredBody(
  response: Response,
  maxBytes: number,
  signal: AbortSignal | undefined,
): Promise<ArrayBuffer> {
  const read = response.arrayBuffer();
  const bytes = await (signal === undefined ? read : untilAborted(read, signal));
  if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
  return bytes;
}

/**
 * Wraps `body` so that more than `maxBytes` bytes, or the deadline's signal aborting (the
 * deadline or the caller), errors the stream with a {@link TransportError}; the deadline is
 * stopped exactly once when the body ends either way.
 *
 * The work per chunk is constant: one read, one count, one enqueue of the same chunk (never
 * copied). The signal is watched by one listener for the whole body, not one race per read,
 * and the listener is removed when the body ends either way: a race per read leaves per-chunk
 * state alive until the body ends, so a body of many tiny chunks grew the heap and slowed down
 * more than linearly.
 *
 * @param body the underlying response body
 * @param maxBytes the byte cap
 * @param deadline the request's deadline
 * @param toError maps a failure of the underlying stream, or the signal's reason, to a
 *   transport error
 * @returns the wrapped stream
 *
 * @category Transport
 */
export function limitBody(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  deadline: Pick<Deadline, "signal" | "stop">,
  toError: ToTransportError,
): ReadableStream<Uint8Array> {
  const signal = deadline.signal;
  const reader = body.getReader();
  let total = 0;
  let finished = false;
  let onAbort = (): void => {};
  const end = (): void => {
    if (finished) return;
    finished = true;
    deadline.stop();
    signal.removeEventListener("abort", onAbort);
  };
  const abandon = (): void => {
    end();
    // The source is no longer wanted; its own cancellation error is of no interest.
    reader.cancel().catch(() => {});
  };

  return new ReadableStream<Uint8Array>({
    start(controller) {
      // The signal errors the stream at once, even while a read is pending on a source that
      // ignores the abort; cancelling the source then ends that read, whose outcome is dropped.
      onAbort = () => {
        if (finished) return;
        abandon();
        controller.error(toError(signal.reason));
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    },
    async pull(controller) {
      let step: ReadableStreamReadResult<Uint8Array>;
      try {
        step = await reader.read();
      } catch (error) {
        if (finished) return;
        abandon();
        controller.error(toError(error));
        return;
      }
      if (finished) return;
      if (step.done) {
        end();
        controller.close();
        return;
      }
      total += step.value.byteLength;
      if (total > maxBytes) {
        abandon();
        controller.error(tooLarge(maxBytes));
        return;
      }
      controller.enqueue(step.value);
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
