/**
 * Long work in short turns: a loop over many items (a large server's tools) gives the event
 * loop back whenever it has run for a few milliseconds, so timers, I/O and other calls of the
 * host run in between and no single turn stalls them.
 *
 * @module
 */

/** How long one turn may run before the work yields, in milliseconds. */
export const TURN_MS = 8;

/**
 * One macrotask: resolves when a message posted now on a fresh `MessageChannel` arrives, after
 * the timers and I/O already due have run. Unlike `setTimeout(0)` it is not clamped: in Deno 2.9
 * a chain of zero-delay timeouts waited 2.3-2.4 ms each, a chain of messages 0.02-0.06 ms. Both
 * ports are closed once it has arrived, so nothing is left to keep a process alive.
 */
function macrotask(): Promise<void> {
  return new Promise<void>((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      port2.close();
      resolve();
    };
    port2.postMessage(null);
  });
}

/**
 * Tells a loop when to yield: `await turns.next()` between items costs nothing until the
 * current turn has run {@link TURN_MS}, then waits one macrotask (a message, not a timer).
 *
 * @example
 * ```ts
 * import { Turns } from "./turns.ts";
 * const turns = new Turns();
 * for (const item of [1, 2, 3]) {
 *   await turns.next();
 *   console.log(item);
 * }
 * ```
 *
 * @category Discovery and calls
 */
export class Turns {
  #started = performance.now();

  /** Resolves at once within a turn; after {@link TURN_MS}, on the next macrotask. */
  next(): Promise<void> | void {
    if (performance.now() - this.#started < TURN_MS) return;
    return macrotask().then(() => {
      this.#started = performance.now();
    });
  }
}
