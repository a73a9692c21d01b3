/**
 * The poisoning screen wired end to end, against a real server (the official v2 SDK over
 * Streamable HTTP on loopback): a tool whose description hides an instruction in Tag characters
 * is skipped with its code by connect(), the clean one runs through `toolkit.call`, `report()`
 * carries codes and pointers and never the hidden text, `sluice inspect` (a real process) shows
 * the decoded message, and the lock records both verdicts and refuses a changed one.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { connect } from "../../src/connect/connect.ts";
import { parseLock, serializeLock } from "../../src/catalog/lock.ts";
import {
  CLEAN_TOOL,
  HIDDEN_INSTRUCTION,
  POISONED_TOOL,
  startPoisonedServer,
  toTagCharacters,
} from "../../fixtures/poisoned_server.ts";
import { REPO_ROOT } from "../support/sessions.ts";

const LOOPBACK = { dangerouslyAllowLoopback: true } as const;
const TAG_FINDING = { code: "screen_hidden_tag_characters", pointer: "/description" };

async function inspectProcess(args: string[]): Promise<{ code: number; out: string }> {
  const run = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", join(REPO_ROOT, "cli.ts"), "inspect", ...args],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: run.code, out: new TextDecoder().decode(run.stdout) };
}

Deno.test("screen: connect() skips the poisoned tool with its code and runs the clean one; report() has no hidden text", async () => {
  const server = await startPoisonedServer();
  const connection = await connect(server.url, {
    id: "calc",
    allow: [POISONED_TOOL, CLEAN_TOOL],
    preApproved: [POISONED_TOOL, CLEAN_TOOL],
    transport: LOOPBACK,
  });
  try {
    const report = connection.report();
    assert.deepEqual(report.skipped.map((tool) => [tool.tool, tool.code]), [
      [POISONED_TOOL, "mcp_tool_screen_refused"],
    ]);
    assert.deepEqual(report.skipped[0].screen, [
      { class: "hidden", ...TAG_FINDING, on: "value" },
    ]);
    assert.match(report.skipped[0].reason, /screen_hidden_tag_characters/);
    assert.deepEqual(report.ready.map((tool) => [tool.tool, tool.screen]), [[CLEAN_TOOL, []]]);
    const text = JSON.stringify(report);
    assert.ok(!text.includes('"decoded"'), "no decoded message in report()");
    assert.ok(!text.includes("id_rsa") && !/[\u{e0000}-\u{e007f}]/u.test(text), "no hidden text");

    const echoed = await connection.toolkit.call("calc__echo", { text: "hello" });
    assert.deepEqual(echoed.text, ["hello"]);
    const refused = await connection.toolkit.call("calc__add", { a: 1, b: 2 });
    assert.ok(refused.errorCode !== undefined);
    assert.deepEqual(server.calls, [CLEAN_TOOL], "the refused tool is never called");

    // What runs is locked with its verdict: the clean tool, clean.
    const lock = await connection.lock();
    assert.deepEqual(Object.keys(lock.servers.calc.tools), [CLEAN_TOOL]);
    assert.deepEqual(lock.servers.calc.tools[CLEAN_TOOL].screen, []);
  } finally {
    await connection.close();
    await server.close();
  }
});

Deno.test("screen: an owner spec makes the refused tool usable (its text is what is screened); report policy keeps it", async () => {
  const server = await startPoisonedServer();
  const spec = {
    tool: POISONED_TOOL,
    description: "Adds two numbers.",
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    },
  };
  const withSpec = await connect(server.url, {
    id: "calc",
    allow: [POISONED_TOOL],
    preApproved: [POISONED_TOOL],
    specs: [spec],
    transport: LOOPBACK,
  });
  try {
    const ready = withSpec.report().ready;
    assert.deepEqual(ready.map((tool) => [tool.tool, tool.source, tool.screen]), [
      [POISONED_TOOL, "owner_spec", []],
    ]);
    const sum = await withSpec.toolkit.call("calc__add", { a: 2, b: 3 });
    assert.deepEqual(sum.text, ["5"]);
  } finally {
    await withSpec.close();
  }
  // A host that chooses to only report hidden text for this one tool keeps it, with the finding.
  const reported = await connect(server.url, {
    id: "calc",
    allow: [POISONED_TOOL],
    preApproved: [POISONED_TOOL],
    screenTools: { [POISONED_TOOL]: { hidden: "report" } },
    transport: LOOPBACK,
  });
  try {
    const [tool] = reported.report().ready;
    assert.deepEqual(tool.screen, [{ class: "hidden", ...TAG_FINDING, on: "value" }]);
  } finally {
    await reported.close();
    await server.close();
  }
});

Deno.test("screen: sluice inspect (a process) shows the decoded hidden message; --lock records both verdicts", async () => {
  const server = await startPoisonedServer();
  const dir = await Deno.makeTempDir();
  try {
    const shown = await inspectProcess([server.url.href, "--allow-loopback"]);
    assert.equal(shown.code, 0);
    assert.match(shown.out, /^- add {2}does not fit: mcp_tool_screen_refused/m);
    assert.match(shown.out, /^\+ echo {2}fits$/m);
    assert.ok(
      shown.out.includes(
        `screen:      screen_hidden_tag_characters at /description; U+E0042; hidden message: ${
          JSON.stringify(HIDDEN_INSTRUCTION)
        }`,
      ),
      shown.out,
    );
    // The raw Tag characters never reach the terminal: they are escaped.
    assert.ok(!/[\u{e0000}-\u{e007f}]/u.test(shown.out));

    const path = join(dir, "sluice.lock.json");
    const written = await inspectProcess([server.url.href, "--allow-loopback", "--lock", path]);
    assert.equal(written.code, 0);
    const lock = await parseLock(await Deno.readTextFile(path));
    const tools = lock.servers.server.tools;
    assert.deepEqual(tools[POISONED_TOOL].screen, [TAG_FINDING]);
    assert.deepEqual(tools[CLEAN_TOOL].screen, []);

    // The lock pins the verdict: connect() under it runs the clean tool, and refuses it once
    // the locked verdict differs (the definition is the same).
    const renamed = { ...lock, servers: { calc: lock.servers.server } };
    const locked = await connect(server.url, {
      id: "calc",
      allow: [CLEAN_TOOL],
      preApproved: [CLEAN_TOOL],
      lock: renamed,
      transport: LOOPBACK,
    });
    try {
      assert.deepEqual(locked.report().ready.map((tool) => tool.tool), [CLEAN_TOOL]);
      assert.deepEqual(locked.report().servers[0].lock?.mismatches, []);
    } finally {
      await locked.close();
    }
    const edited = structuredClone(renamed) as typeof renamed;
    (edited.servers.calc.tools[CLEAN_TOOL] as { screen: unknown }).screen = [{
      code: "screen_markup_urgency",
      pointer: "/description",
    }];
    const mismatched = await connect(server.url, {
      id: "calc",
      allow: [CLEAN_TOOL],
      preApproved: [CLEAN_TOOL],
      lock: await parseLock(serializeLock(edited)),
      transport: LOOPBACK,
    });
    try {
      const report = mismatched.report();
      assert.deepEqual(report.skipped.map((tool) => [tool.tool, tool.code]), [
        [CLEAN_TOOL, "catalog_lock_mismatch"],
      ]);
      assert.deepEqual(report.servers[0].lock?.mismatches.map((item) => [item.kind, item.screen]), [
        ["screen", { added: [], removed: ["screen_markup_urgency"] }],
      ]);
    } finally {
      await mismatched.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
    await server.close();
  }
});

Deno.test("screen: results, opt-in per server: hidden text refused, or revealed as escapes, or (off) passed", async () => {
  const server = await startPoisonedServer();
  const hidden = `sum: 3${toTagCharacters("AB")}`;
  const open = (screenResults?: "refuse" | "reveal") =>
    connect(server.url, {
      id: "calc",
      allow: [CLEAN_TOOL],
      preApproved: [CLEAN_TOOL],
      transport: LOOPBACK,
      ...(screenResults ? { screenResults } : {}),
    });
  try {
    for (
      const [mode, expected] of [
        ["refuse", { text: [], errorCode: "mcp_result_hidden_text" }],
        ["reveal", { text: ["sum: 3\\u{E0041}\\u{E0042}"] }],
        [undefined, { text: [hidden] }],
      ] as const
    ) {
      const connection = await open(mode);
      try {
        const envelope = await connection.toolkit.call("calc__echo", { text: hidden });
        assert.deepEqual(envelope.text, expected.text, String(mode));
        assert.equal(envelope.errorCode, "errorCode" in expected ? expected.errorCode : undefined);
        // Clean text is never touched.
        const plain = await connection.toolkit.call("calc__echo", { text: "plain" });
        assert.deepEqual(plain.text, ["plain"]);
      } finally {
        await connection.close();
      }
    }
  } finally {
    await server.close();
  }
});
