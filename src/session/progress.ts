/**
 * A request's progress, as the SDK reports it: each `notifications/progress` checked and handed
 * to the host's listener, and (when the host opted in) an idle deadline it restarts. The
 * request's total deadline is never touched.
 *
 * @module
 */
import { isRecord } from "../identity/mod.ts";
import { remoteText } from "./remote_text.ts";
import type { SessionProgress, SessionRequestOptions } from "./session.ts";

/** What one request with a progress listener runs with. */
export interface ProgressWatch {
  /** The SDK's `onprogress` option. */
  readonly listener: (params: unknown) => void;
  /** The signal to hand the SDK: the total deadline's, and the idle deadline's when set. */
  readonly signal: AbortSignal;
  /** Stops the idle timer; returns whether the idle deadline fired. */
  stop(): boolean;
}

/** A progress notification's params as the host sees them, or `undefined` when malformed. */
export function checkedProgress(params: unknown): SessionProgress | undefined {
  if (!isRecord(params)) return undefined;
  const { progress, total, message } = params;
  if (typeof progress !== "number" || !Number.isFinite(progress)) return undefined;
  if (total !== undefined && (typeof total !== "number" || !Number.isFinite(total))) {
    return undefined;
  }
  return Object.freeze({
    progress,
    ...(total !== undefined ? { total } : {}),
    ...(typeof message === "string" ? { message: remoteText(message) } : {}),
  });
}

/**
 * The progress watch of one request, or `undefined` when the caller gave no `onProgress` (then
 * no progress token is sent at all).
 *
 * @param options the request's options
 * @param total the request's total deadline
 */
export function progressListener(
  options: SessionRequestOptions,
  total: AbortSignal,
): ProgressWatch | undefined {
  const onProgress = options.onProgress;
  if (onProgress === undefined) return undefined;
  const idleMs = options.idleTimeoutMs;
  const idle = idleMs === undefined ? undefined : new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let fired = false;
  const restart = () => {
    if (idle === undefined) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      fired = true;
      idle.abort(new DOMException("No progress within the idle deadline.", "TimeoutError"));
    }, idleMs);
  };
  restart();
  return {
    listener: (params) => {
      const progress = checkedProgress(params);
      if (progress === undefined || total.aborted || fired) return;
      restart();
      try {
        onProgress(progress);
      } catch {
        // The host's listener never affects the call.
      }
    },
    signal: idle === undefined ? total : AbortSignal.any([total, idle.signal]),
    stop: () => {
      clearTimeout(timer);
      return fired;
    },
  };
}
