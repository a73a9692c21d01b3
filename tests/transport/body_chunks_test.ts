// Reading a body of many tiny chunks costs the same per chunk however long the body is: the
// capped body does one read, one count and one enqueue of the very same chunk per chunk, and
// keeps no per-chunk state alive (no listener or race on the deadline signal per read, which
// held every chunk until the body ended). Counted, not timed; `deno task bench body_chunks`
// times it against the raw fetch.
import assert from "node:assert/strict";
import { limitBody } from "../../src/transport/limited_body.ts";
import { secureFetch, TransportError } from "../../src/transport/mod.ts";
import { CHUNK, startChunkServer } from "../../fixtures/chunk_server.ts";

/** A deadline signal that counts the abort listeners added to it and those still attached. */
function countingSignal(timeoutMs = 60_000) {
  const signal = AbortSignal.timeout(timeoutMs);
  let added = 0;
  let removed = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((...args: Parameters<typeof add>) => {
    added++;
    add(...args);
  }) as typeof signal.addEventListener;
  signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
    removed++;
    remove(...args);
  }) as typeof signal.removeEventListener;
  let stops = 0;
  const deadline = { signal, stop: () => void stops++ };
  return { deadline, added: () => added, attached: () => added - removed, stops: () => stops };
}

/** An in-memory source of `count` chunks of 3 bytes, counting the reads made of it. */
function source(count: number) {
  const chunks = Array.from({ length: count }, () => new Uint8Array([97, 98, 99]));
  let pulls = 0;
  let next = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulls++;
      if (next < chunks.length) controller.enqueue(chunks[next++]);
      else controller.close();
    },
  }, { highWaterMark: 0 });
  return { stream, chunks, pulls: () => pulls };
}

const toError = (error: unknown) =>
  error instanceof TransportError ? error : new TransportError("transport_failed", "failed");

async function readAll(count: number) {
  const input = source(count);
  const { deadline, added, attached, stops } = countingSignal();
  const reader = limitBody(input.stream, 10 * count, deadline, toError).getReader();
  let copies = 0;
  let chunks = 0;
  for (;;) {
    const step = await reader.read();
    if (step.done) break;
    if (step.value !== input.chunks[chunks]) copies++;
    chunks++;
  }
  return {
    chunks,
    copies,
    pulls: input.pulls(),
    subscriptions: added(),
    attached: attached(),
    stops: stops(),
  };
}

Deno.test("a capped body does constant work per chunk and keeps nothing per chunk", async () => {
  const small = await readAll(1_000);
  const large = await readAll(20_000);
  for (const [count, run] of [[1_000, small], [20_000, large]] as const) {
    assert.equal(run.chunks, count);
    assert.equal(run.copies, 0, "every chunk is passed on as is, never copied");
    // One read of the source per chunk, plus the one that finds its end.
    assert.equal(run.pulls, count + 1);
    // The body's end detaches it from the deadline signal, which may outlive it.
    assert.equal(run.attached, 0, "a listener stayed on the deadline signal");
    assert.equal(run.stops, 1, "the deadline's timer is stopped once, at the end");
  }
  // The deadline is watched once per body: twenty times the chunks, the same subscriptions.
  assert.equal(large.subscriptions, small.subscriptions);
  assert.ok(large.subscriptions <= 1, `${large.subscriptions} subscriptions`);
});

Deno.test("the deadline still ends a capped body whose source ignores the abort", async () => {
  const signal = AbortSignal.timeout(50);
  const stopped = (reason: unknown) =>
    reason === signal.reason
      ? new TransportError("transport_timeout", "timed out")
      : toError(reason);
  // A source that never yields and never hears of the abort.
  const silent = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
  const reader = limitBody(silent, 1_000, { signal, stop: () => {} }, stopped).getReader();
  await assert.rejects(reader.read(), (error: unknown) => {
    assert.ok(error instanceof TransportError);
    assert.equal(error.code, "transport_timeout");
    return true;
  });
});

Deno.test("120,000 chunks of 3 bytes over loopback arrive whole through secureFetch", async () => {
  const count = 120_000;
  const server = startChunkServer();
  try {
    const fetchSafely = secureFetch({
      dangerouslyAllowLoopback: true,
      maxResponseBytes: CHUNK.byteLength * count,
      timeoutMs: 60_000,
    });
    const response = await fetchSafely(server.url(count));
    const reader = response.body!.getReader();
    let bytes = 0;
    let reads = 0;
    for (;;) {
      const step = await reader.read();
      if (step.done) break;
      bytes += step.value.byteLength;
      reads++;
    }
    assert.equal(bytes, CHUNK.byteLength * count);
    // Many separate chunks really arrived (loopback merges some, never most).
    assert.ok(reads > count / 4, `${reads} reads`);
  } finally {
    await server.close();
  }
});
