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
 * Tells a loop when to yield: `await turns.next()` between items costs nothing until the
 * current turn has run {@link TURN_MS}, then waits one macrotask.
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
    return new Promise<void>((resolve) =>
      setTimeout(() => {
        this.#started = performance.now();
        resolve();
      }, 0)
    );
  }
}
