// The session-side parts of client requests, alone: remote text (bounded, escaped), the SSE
// event parser both stream readers share (any chunking), the scanner that names the server
// requests on a reply stream, and progress checks with the idle deadline.
import assert from "node:assert/strict";
import { MAX_REMOTE_TEXT_CHARS, remoteText } from "../../mod.ts";
import { SseEvents } from "../../src/session/sse_events.ts";
import { EventScanner, handlerOfTag, requestTag } from "../../src/session/related_requests.ts";
import { checkedProgress, progressListener } from "../../src/session/progress.ts";

Deno.test("remoteText() escapes controls, bidi and zero-width characters and bounds the length", () => {
  assert.deepEqual(remoteText("ok\u001b[2J\u0007\u202e\u200b\ufeff\u0085"), {
    remote: true,
    text: "ok\\u{1b}[2J\\u{7}\\u{202e}\\u{200b}\\u{feff}\\u{85}",
    truncated: false,
  });
  const long = remoteText("é".repeat(MAX_REMOTE_TEXT_CHARS + 5));
  assert.equal(long.truncated, true);
  assert.equal(long.text.length, MAX_REMOTE_TEXT_CHARS);
  // Never cut inside a surrogate pair; a lone surrogate becomes U+FFFD.
  const emoji = remoteText("😀".repeat(10), 3);
  assert.deepEqual([emoji.text, emoji.truncated], ["😀😀😀", true]);
  assert.equal(remoteText("a\ud800b").text, "a\ufffdb");
  assert.equal(remoteText({ n: 1 }).text, '{"n":1}');
  assert.equal(remoteText(10n).text, "");
  assert.equal(Object.isFrozen(remoteText("x")), true);
});

Deno.test("SseEvents: the same events whatever the chunking and line ends", () => {
  const stream = 'event: message\r\ndata: {"a":1}\r\n\r\n: keep-alive\n\ndata: one\ndata: two\n\n' +
    "event: other\ndata: skipped\n\ndata:{}\r\r\n";
  const expected = ['{"a":1}', "one\ntwo", "{}"];
  for (let size = 1; size <= stream.length; size++) {
    const seen: string[] = [];
    const events = new SseEvents((data) => seen.push(data));
    for (let at = 0; at < stream.length; at += size) events.push(stream.slice(at, at + size));
    assert.deepEqual(seen, expected, `chunks of ${size}`);
  }
});

Deno.test("EventScanner names each server request on a stream, not responses or notifications", () => {
  const found: unknown[] = [];
  const scanner = new EventScanner((id) => found.push(id));
  const bytes = new TextEncoder().encode(
    'data: {"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{}}\n\n' +
      'data: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}\n\n' +
      'data: {"jsonrpc":"2.0","id":3,"result":{"method":"x"}}\n\n' +
      'data: {"jsonrpc":"2.0","id":"s-1","method":"ping"}\n\n',
  );
  // Split inside a multi-byte-free stream at every third byte.
  for (let at = 0; at < bytes.length; at += 3) scanner.push(bytes.subarray(at, at + 3));
  assert.deepEqual(found, [7, "s-1"]);
});

Deno.test("requestTag() carries its handler through an opaque function, which does nothing", () => {
  const handler = () => Promise.resolve({ action: "decline" });
  const tag = requestTag(handler);
  assert.equal(handlerOfTag(tag), handler);
  assert.equal(tag("token"), undefined);
  assert.equal(handlerOfTag(() => {}), undefined);
  assert.equal(handlerOfTag("x"), undefined);
});

Deno.test("checkedProgress() keeps finite numbers and escaped remote text only", () => {
  assert.deepEqual(checkedProgress({ progress: 1, total: 4, message: "a\u0000" }), {
    progress: 1,
    total: 4,
    message: { remote: true, text: "a\\u{0}", truncated: false },
  });
  assert.equal(checkedProgress({ progress: Infinity }), undefined);
  assert.equal(checkedProgress({ progress: 1, total: "4" }), undefined);
  assert.equal(checkedProgress(null), undefined);
});

Deno.test("progressListener(): none without onProgress; the idle deadline restarts on progress and fires without it", async () => {
  const total = new AbortController();
  assert.equal(progressListener({ timeoutMs: 1_000 }, total.signal), undefined);
  const heard: number[] = [];
  // Wide margins (50 ms steps against a 250 ms idle deadline): a loaded machine's late timers
  // must not decide the test. Each step's real gap is measured, so a gap the machine stretched
  // past the deadline is told apart from a deadline that did not restart.
  const IDLE_MS = 250;
  const watch = progressListener({
    timeoutMs: 10_000,
    idleTimeoutMs: IDLE_MS,
    onProgress: (progress) => {
      heard.push(progress.progress);
      throw new Error("the host's listener may throw");
    },
  }, total.signal)!;
  const aborted = new Promise<number>((resolve) =>
    watch.signal.addEventListener("abort", () => resolve(performance.now()), { once: true })
  );
  let last = performance.now();
  const started = last;
  for (let step = 1; step <= 8; step++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = performance.now();
    assert.ok(now - last < IDLE_MS, `the machine held a 50 ms step for ${now - last} ms`);
    assert.equal(watch.signal.aborted, false, `progress ${step - 1} kept the idle deadline off`);
    watch.listener({ progress: step });
    last = now;
  }
  // The steps outlasted one idle deadline: only restarts kept it from firing.
  assert.ok(last - started > IDLE_MS);
  const firedAt = await aborted;
  assert.ok(firedAt - last >= IDLE_MS - 5, `fired ${firedAt - last} ms after the last progress`);
  assert.equal((watch.signal.reason as DOMException).name, "TimeoutError");
  watch.listener({ progress: 9 });
  assert.deepEqual(heard, [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.equal(watch.stop(), true);
});
