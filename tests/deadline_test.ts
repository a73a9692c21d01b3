import assert from "node:assert/strict";
import { DeadlineQueue, startDeadline, within } from "../src/deadline.ts";

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

Deno.test("DeadlineQueue: deadlines of different durations each pass at their own time", async () => {
  const deadlines = new DeadlineQueue(60_000);
  const long = deadlines.start(undefined);
  const short = deadlines.start(undefined, 20);
  const shorter = deadlines.start(undefined, 10);
  const order: string[] = [];
  await Promise.all([
    aborted(short.signal).then(() => order.push("short")),
    aborted(shorter.signal).then(() => order.push("shorter")),
  ]);
  assert.deepEqual(order, ["shorter", "short"]);
  assert.equal(short.expired, true);
  assert.equal(short.remainingMs(), 0);
  assert.equal(long.signal.aborted, false);
  assert.equal(long.expired, false);
  assert.ok(long.remainingMs() > 50_000);
  long.stop();
  assert.equal(long.signal.aborted, false);
});

Deno.test("DeadlineQueue: deadlines that pass in one late firing end in the order they pass", async () => {
  const deadlines = new DeadlineQueue(60_000);
  const long = deadlines.start(undefined);
  const short = deadlines.start(undefined, 20);
  const shorter = deadlines.start(undefined, 10);
  const order: string[] = [];
  const both = Promise.all([
    aborted(short.signal).then(() => order.push("short")),
    aborted(shorter.signal).then(() => order.push("shorter")),
  ]);
  // A busy host: the timer fires once, after both have passed (as on a loaded machine).
  const until = performance.now() + 40;
  while (performance.now() < until) { /* the event loop is held */ }
  await both;
  assert.deepEqual(order, ["shorter", "short"]);
  long.stop();
});

Deno.test("DeadlineQueue: without a duration of its own a deadline needs one", () => {
  assert.throws(() => new DeadlineQueue().start(undefined), TypeError);
});

Deno.test("startDeadline: the caller's abort is not the deadline passing", () => {
  const caller = new AbortController();
  const deadline = startDeadline(caller.signal, 60_000);
  caller.abort("stop");
  assert.equal(deadline.signal.reason, "stop");
  assert.equal(deadline.expired, false);
  assert.equal(deadline.remainingMs(), 0);
  deadline.stop();
});

Deno.test("within: work that outlives its deadline is left with the deadline's reason", async () => {
  let seen: AbortSignal | undefined;
  const deadline = startDeadline(undefined, 10);
  const never = (signal: AbortSignal) => {
    seen = signal;
    return new Promise<never>(() => {});
  };
  const reason = await within(never, deadline).catch((error: unknown) => error);
  assert.equal((reason as DOMException).name, "TimeoutError");
  assert.equal(deadline.expired, true);
  assert.equal(seen, deadline.signal);
});

Deno.test("within: a result in time stops the deadline; a throw rejects with it", async () => {
  const deadline = startDeadline(undefined, 60_000);
  assert.equal(await within(() => 7, deadline), 7);
  // Stopped: its timer neither fires nor keeps the test's process alive.
  assert.equal(deadline.signal.aborted, false);
  const failing = startDeadline(undefined, 60_000);
  const error = new Error("bad");
  await assert.rejects(
    within(() => {
      throw error;
    }, failing),
    (thrown) => thrown === error,
  );
  assert.equal(failing.signal.aborted, false);
});
