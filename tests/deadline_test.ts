import assert from "node:assert/strict";
import { DeadlineQueue } from "../src/deadline.ts";

/** Resolves when `signal` aborts. */
const aborted = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));

Deno.test("DeadlineQueue: the caller's abort fires with the caller's reason", () => {
  const deadlines = new DeadlineQueue(60_000);
  const caller = new AbortController();
  const deadline = deadlines.start(caller.signal);
  assert.equal(deadline.signal.aborted, false);
  const reason = new Error("stop");
  caller.abort(reason);
  assert.equal(deadline.signal.aborted, true);
  assert.equal(deadline.signal.reason, reason);
  deadline.stop();
});

Deno.test("DeadlineQueue: a caller signal aborted already gives an aborted signal", () => {
  const caller = new AbortController();
  caller.abort("gone");
  const deadline = new DeadlineQueue(60_000).start(caller.signal);
  assert.equal(deadline.signal.aborted, true);
  assert.equal(deadline.signal.reason, "gone");
  deadline.stop();
});

Deno.test("DeadlineQueue: deadlines pass in order on one timer; a stopped one never fires", async () => {
  const deadlines = new DeadlineQueue(20);
  const caller = new AbortController();
  const first = deadlines.start(caller.signal);
  const stopped = deadlines.start(undefined);
  const second = deadlines.start(undefined);
  stopped.stop();
  const order: string[] = [];
  const both = Promise.all([
    aborted(first.signal).then(() => order.push("first")),
    aborted(second.signal).then(() => order.push("second")),
  ]);
  await both;
  assert.deepEqual(order, ["first", "second"]);
  for (const deadline of [first, second]) {
    assert.equal((deadline.signal.reason as DOMException).name, "TimeoutError");
  }
  assert.equal(stopped.signal.aborted, false);
  // The caller aborting later changes nothing: the deadline's listener is gone.
  caller.abort("late");
  assert.equal((first.signal.reason as DOMException).name, "TimeoutError");
  // After the queue went idle, a new deadline gets the timer again.
  const later = deadlines.start(undefined);
  await aborted(later.signal);
  assert.equal((later.signal.reason as DOMException).name, "TimeoutError");
  assert.equal(stopped.signal.aborted, false);
});

Deno.test("DeadlineQueue: a deadline started after an older one stopped still passes", async () => {
  const deadlines = new DeadlineQueue(20);
  const old = deadlines.start(undefined);
  // The timer is armed for `old`; once it is stopped the timer fires early and waits again.
  await new Promise((resolve) => setTimeout(resolve, 10));
  const young = deadlines.start(undefined);
  old.stop();
  await aborted(young.signal);
  assert.equal((young.signal.reason as DOMException).name, "TimeoutError");
  assert.equal(old.signal.aborted, false);
});
