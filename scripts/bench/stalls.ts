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

/** The longest synchronous driver calls during a measured call, in milliseconds. */
export interface DriverCalls {
  /** The longest call that threw (a busy database: the lock wait's attempts). */
  readonly failedMs: number;
  /** The longest call that returned (the claim itself, its commit's `fsync` included). */
  readonly succeededMs: number;
}

/**
 * Times every synchronous call of the native `libsql` driver's statements (`run`, `all`, `get`;
 * the store's statements included, they share the prototype) while `call` runs: how long the
 * driver itself kept the event loop, apart from anything else on the machine.
 */
export async function longestDriverCalls(
  db: { prepare(sql: string): object },
  call: () => Promise<unknown>,
): Promise<DriverCalls> {
  const prototype = Object.getPrototypeOf(db.prepare("SELECT 1")) as Record<
    string,
    (...args: unknown[]) => unknown
  >;
  const originals = ["run", "all", "get"].map((name) => [name, prototype[name]] as const);
  let failedMs = 0;
  let succeededMs = 0;
  for (const [name, original] of originals) {
    prototype[name] = function (this: unknown, ...args: unknown[]) {
      const start = performance.now();
      try {
        const result = original.apply(this, args);
        succeededMs = Math.max(succeededMs, performance.now() - start);
        return result;
      } catch (error) {
        failedMs = Math.max(failedMs, performance.now() - start);
        throw error;
      }
    };
  }
  try {
    await call();
    return { failedMs, succeededMs };
  } finally {
    for (const [name, original] of originals) prototype[name] = original;
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
