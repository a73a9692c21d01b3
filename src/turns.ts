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
 * How long the event loop may go without a timer's turn: a yield waits on a timer when the last
 * yield that did is this long ago, and on a message otherwise.
 */
export const TIMER_TURN_MS = 2 * TURN_MS;

/** When a yield last resumed from a timer (shared by every loop: timers are the host's). */
let timerTurnAt = -Infinity;

/**
 * One macrotask on a fresh `MessageChannel`: resolves when a message posted now arrives, after
 * the I/O already due. Unlike `setTimeout(0)` it has no wait of its own (in Deno 2.9 a zero-delay
 * timeout resumed 2.2-2.4 ms later, a message 0.02-0.06 ms), but Deno does not always run due
 * timers before it: a loop yielding only so starved a 1 ms interval for 15 ms and more. Both
 * ports are closed once it has arrived, so nothing is left to keep a process alive.
 */
function message(): Promise<void> {
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

/** One timer's turn: due timers run before it resumes. */
function timer(): Promise<void> {
  return new Promise<void>((resolve) => setTimeout(resolve, 0));
}

/**
 * Tells a loop when to yield: `await turns.next()` between items costs nothing until the
 * current turn has run {@link TURN_MS}, then waits one macrotask: a message, or a timer when no
 * yield gave timers a turn in the last {@link TIMER_TURN_MS}.
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
    const now = performance.now();
    if (now - this.#started < TURN_MS) return;
    const byTimer = now - timerTurnAt >= TIMER_TURN_MS;
    return (byTimer ? timer() : message()).then(() => {
      this.#started = performance.now();
      if (byTimer) timerTurnAt = this.#started;
    });
  }
}
