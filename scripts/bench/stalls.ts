/**
 * Event-loop stalls of store calls that wait for a lock: the longest gap between ticks of a 1 ms
 * interval timer while one call runs. Used by `write_path.ts`, which reports it per store.
 *
 * @module
 */

/** How long a call took, and the longest the event loop went without running a timer meanwhile. */
export interface StallMeasurement {
  /** The call's own duration, milliseconds. */
  readonly callMs: number;
  /** The longest gap between two ticks of a 1 ms timer, minus that 1 ms. */
  readonly maxLagMs: number;
}

/** Runs `call` with a 1 ms interval timer beside it and measures the largest gap between ticks. */
export async function measureStall(call: () => Promise<unknown>): Promise<StallMeasurement> {
  let last = performance.now();
  let maxGap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
  }, 1);
  const start = performance.now();
  try {
    await call();
    const end = performance.now();
    // The gap still open when the call ended counts too.
    maxGap = Math.max(maxGap, end - last);
    return { callMs: end - start, maxLagMs: Math.max(0, maxGap - 1) };
  } finally {
    clearInterval(timer);
  }
}

/**
 * Starts `deno run -A scripts/bench/lock_holder.ts <path> <ms>` and resolves once it holds the
 * write lock of the SQLite file at `path`; `released` settles when it has exited.
 */
export async function holdSqliteLock(
  path: string,
  ms: number,
): Promise<{ released: Promise<void> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./lock_holder.ts", import.meta.url).pathname, path, String(ms)],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("locked")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the lock holder ended before it took the lock");
    text += value;
  }
  const released = (async () => {
    while (!(await reader.read()).done) { /* drain */ }
    const status = await child.status;
    if (!status.success) throw new Error("the lock holder failed");
  })();
  // An object, not the promise itself: an async function would wait for a returned promise.
  return { released };
}
