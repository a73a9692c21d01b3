// A stdio server whose notifications and answer reach sluice in one chunk (fixtures/
// hostile_stdio.ts `one-write`: three progress steps, a log message and the result in a single
// write, as a fast server's stdout often reads). The v2 SDK client settles a response at once
// but runs a notification's handler a microtask later, so messages handed to it in one
// synchronous loop would settle the call before its last progress steps are heard (the
// response removes the call's progress handler first). Every step and the log message must
// reach the host, for every call; the server's process is gone after close().
import assert from "node:assert/strict";
import { connect } from "../../mod.ts";
import { processGone } from "../../fixtures/process.ts";
import { fixtureCommand } from "../support/stdio_servers.ts";

Deno.test("stdio: progress steps and a log message written in one chunk with the answer all reach the host", async () => {
  const steps: number[][] = [];
  const logs: string[] = [];
  const connection = await connect(fixtureCommand("hostile_stdio.ts", ["one-write"]), {
    id: "batch",
    allow: ["poke"],
    preApproved: ["poke"],
    transport: { timeoutMs: 10_000 },
    onProgress: (_call, progress) => steps.at(-1)!.push(progress.progress),
    onLog: (_server, _level, message) => logs.push(message.text),
  });
  const pid = connection.report().servers[0].stdio!.pid!;
  try {
    for (let call = 0; call < 5; call++) {
      steps.push([]);
      const envelope = await connection.toolkit.call("batch__poke", {});
      assert.equal(envelope.errorCode, undefined);
      assert.deepEqual(envelope.text, ["ok"]);
      assert.deepEqual(steps.at(-1), [1, 2, 3], `call ${call}: every step before the answer`);
    }
    // Log messages are not tied to a call: each arrives, in order, if not before the answer.
    for (let wait = 0; logs.length < 5 && wait < 50; wait++) {
      await new Promise((done) => setTimeout(done, 10));
    }
    assert.deepEqual(logs, Array(5).fill("done soon"));
  } finally {
    await connection.close();
  }
  assert.ok(await processGone(pid), "the server process is gone");
});
