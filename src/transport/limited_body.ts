/**
 * The response body as the caller sees it: counted while it streams and cut off at the byte cap
 * or the deadline, whichever comes first. Works the same for JSON and for endless SSE streams.
 *
 * @module
 */
import type { Deadline } from "./deadline.ts";
import { TransportError } from "./errors.ts";

/**
 * How a wrapped body reports a failure of the underlying stream.
 *
 * @category Transport
 */
export type ToTransportError = (error: unknown) => TransportError;

/**
 * Wraps `body` so that more than `maxBytes` bytes, the deadline, or the caller's abort errors the
 * stream with a {@link TransportError}; the deadline is disposed exactly once when the body ends
 * either way.
 *
 * The work per chunk is constant: one read, one count, one enqueue of the same chunk (never
 * copied). The deadline is watched by one subscription for the whole body, not one race per
 * read: a race per read leaves a reaction on the deadline's long-lived promise for every chunk,
 * each holding that chunk until the body ends, so a body of many tiny chunks grew the heap and
 * slowed down more than linearly.
 *
 * @param body the underlying response body
 * @param maxBytes the byte cap
 * @param deadline the request's deadline
 * @param toError maps a failure of the underlying stream to a transport error
 * @returns the wrapped stream
 *
 * @category Transport
 */
export function limitBody(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  deadline: Deadline,
  toError: ToTransportError,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let total = 0;
  let finished = false;
  const end = (): void => {
    if (finished) return;
    finished = true;
    deadline.dispose();
  };
  const abandon = (): void => {
    end();
    // The source is no longer wanted; its own cancellation error is of no interest.
    reader.cancel().catch(() => {});
  };

  return new ReadableStream<Uint8Array>({
    start(controller) {
      // The deadline errors the stream at once, even while a read is pending on a source that
      // ignores the abort; cancelling the source then ends that read, whose outcome is dropped.
      deadline.expired.catch((failure: TransportError) => {
        if (finished) return;
        abandon();
        controller.error(failure);
      });
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
        controller.error(
          new TransportError(
            "transport_response_too_large",
            `The response body exceeded ${maxBytes} bytes: raise maxResponseBytes.`,
          ),
        );
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
