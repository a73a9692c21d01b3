/**
 * Snapshot identity against the real fixture servers: the digest is the same across runs,
 * processes, transports and list order; it changes when one schema keyword, the description
 * or any host-bound field changes; and the snapshot is detached from both the server's objects
 * and the host's bindings.
 *
 * "Identical across transports" means: the entries (everything that defines the tools) digest
 * identically on every path, and `revisionDigest` is identical on every path that negotiated
 * the same protocol version (and so the same change-detection mode). A 2026-07-28 session's
 * snapshot differs from a 2025-11-25 one only in those two recorded fields, which the test
 * proves by substituting them and recomputing.
 */
import assert from "node:assert/strict";
import { canonicalize, digest, DiscoveryError, type ReadSnapshot } from "../../mod.ts";
import { openSession, REPO_ROOT, SESSION_KINDS } from "../support/sessions.ts";
import {
  bind,
  callBindings,
  discover,
  interceptingClient,
  wireMonitor,
} from "../support/read_host.ts";
import { discoverTools } from "../../mod.ts";
import { gatedRead } from "../support/read_gate.ts";

interface Discovered {
  kind: string;
  snapshot: ReadSnapshot;
  reversed: ReadSnapshot;
}

async function discoverKind(kind: (typeof SESSION_KINDS)[number]): Promise<Discovered> {
  const session = await openSession(kind);
  const reversedSession = await openSession(kind, { reverse: true });
  try {
    const first = await discover(session, callBindings());
    const again = await discover(session, callBindings());
    assert.equal(again.snapshot.revisionDigest, first.snapshot.revisionDigest, "same run twice");
    const reversed = await discover(reversedSession, callBindings());
    for (const found of [first, again, reversed]) found.monitor.close();
    return { kind, snapshot: first.snapshot, reversed: reversed.snapshot };
  } finally {
    await session.close();
    await reversedSession.close();
  }
}

/** The digest of a snapshot's body, recomputed independently of the code under test. */
function body(snapshot: ReadSnapshot): Record<string, unknown> {
  const { revisionDigest: _, ...rest } = snapshot;
  return rest;
}

Deno.test("identity: digest across transports, list order, runs and processes", async () => {
  const found = await Promise.all(SESSION_KINDS.map(discoverKind));
  const entryDigests = await Promise.all(found.map((f) => digest(f.snapshot.entries)));
  assert.equal(new Set(entryDigests).size, 1, "entries digest identically on every path");
  for (const f of found) {
    assert.equal(f.reversed.revisionDigest, f.snapshot.revisionDigest, `${f.kind} reversed`);
    assert.equal(f.snapshot.revisionDigest, await digest(body(f.snapshot)), `${f.kind} recompute`);
  }
  const legacy = found.filter((f) => f.snapshot.protocolVersion === "2025-11-25");
  assert.deepEqual(legacy.map((f) => f.kind), ["memory-v1", "memory-v2", "stdio-v1", "http-2025"]);
  assert.equal(new Set(legacy.map((f) => f.snapshot.revisionDigest)).size, 1);
  const modern = found.find((f) => f.kind === "http-2026")!.snapshot;
  assert.equal(modern.protocolVersion, "2026-07-28");
  assert.notEqual(modern.revisionDigest, legacy[0].snapshot.revisionDigest);
  const substituted = {
    ...body(modern),
    protocolVersion: "2025-11-25",
    changeDetection: "notifications",
  };
  assert.equal(await digest(substituted), legacy[0].snapshot.revisionDigest);

  // Another process, another transport (stdio subprocess driven from a child Deno process).
  const child = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "tests/support/digest_child.ts", "stdio-v1"],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert.equal(child.code, 0);
  const fromChild = JSON.parse(new TextDecoder().decode(child.stdout).trim().split("\n").at(-1)!);
  assert.equal(fromChild.revisionDigest, legacy[0].snapshot.revisionDigest);
  assert.equal(fromChild.entriesDigest, entryDigests[0]);
});

Deno.test("identity: one keyword, the description or any bound field changes the digest", async () => {
  const session = await openSession("memory-v2");
  const monitors: { close(): void }[] = [];
  try {
    const base = await discover(session, callBindings());
    monitors.push(base.monitor);
    const digestWith = async (
      bindings = callBindings(),
      alter: (tools: Record<string, unknown>[]) => void = () => {},
    ): Promise<string> => {
      const { client } = interceptingClient(session.client, (method, result) => {
        if (method === "tools/list") alter((result as { tools: Record<string, unknown>[] }).tools);
      });
      const { monitor } = wireMonitor(session);
      monitors.push(monitor);
      return (await discoverTools(client, "fixture", bindings, { monitor })).snapshot
        .revisionDigest;
    };
    assert.equal(await digestWith(), base.snapshot.revisionDigest, "interception is neutral");
    const tool = (tools: Record<string, unknown>[], name: string) =>
      tools.find((t) => t.name === name) as Record<string, Record<string, unknown>>;
    const variants: [string, Promise<string>][] = [
      [
        "maximum of one property",
        digestWith(undefined, (tools) => {
          const props = tool(tools, "slow").inputSchema.properties as Record<
            string,
            Record<string, unknown>
          >;
          props.ms.maximum = 600001;
        }),
      ],
      [
        "output schema additionalProperties",
        digestWith(undefined, (tools) => {
          tool(tools, "add").outputSchema.additionalProperties = true;
        }),
      ],
      [
        "description",
        digestWith(undefined, (tools) => {
          (tool(tools, "echo") as Record<string, unknown>).description = "Echoes.";
        }),
      ],
      [
        "annotations",
        digestWith(undefined, (tools) => {
          tool(tools, "add").annotations = { readOnlyHint: false };
        }),
      ],
      ["local name", digestWith({ ...callBindings(), echo: bind("echo_other") })],
      [
        "policy title",
        digestWith({
          ...callBindings(),
          echo: { ...bind("echo_text"), policy: { mode: "read", title: "Other" } },
        }),
      ],
      ["concurrency", digestWith({ ...callBindings(), echo: bind("echo_text", null, true) })],
    ];
    const seen = new Set([base.snapshot.revisionDigest]);
    for (const [label, pending] of variants) {
      const value = await pending;
      assert.ok(!seen.has(value), `${label} changes the digest`);
      seen.add(value);
    }
  } finally {
    for (const monitor of monitors) monitor.close();
    await session.close();
  }
});

Deno.test("identity: the snapshot is detached from the server's objects and the bindings", async () => {
  const session = await openSession("memory-v2");
  try {
    const { client, results } = interceptingClient(session.client);
    const bindings = callBindings();
    const { monitor } = wireMonitor(session);
    const found = await discoverTools(client, "fixture", bindings, { monitor });
    const { snapshot } = found;
    const before = canonicalize(snapshot);
    // Mutate everything the server sent and everything the host passed.
    for (const result of results) {
      for (const tool of (result as { tools: Record<string, unknown>[] }).tools) {
        tool.description = "mutated";
        tool.inputSchema = { type: "object", properties: {} };
        (tool as Record<string, unknown>).annotations = { destructiveHint: true };
      }
    }
    (bindings.echo as { localName: string }).localName = "mutated";
    (bindings.add.policy as { title: string }).title = "mutated";
    delete (bindings as Record<string, unknown>).image;
    assert.equal(canonicalize(snapshot), before);
    assert.equal(snapshot.revisionDigest, await digest(body(snapshot)));
    // Calls still validate against the schemas as discovered.
    const add = gatedRead(found, "add_numbers");
    assert.equal((await add.call({ a: "1", b: 2 })).errorCode, "mcp_invalid_arguments");
    assert.deepEqual((await add.call({ a: 1, b: 2 })).structured, { sum: 3 });
    monitor.close();
  } finally {
    await session.close();
  }
});

Deno.test("identity: an unbound tool that breaks JSON or repeats fails nothing bound", async () => {
  const session = await openSession("memory-v1");
  try {
    const hostile: ((tools: Record<string, unknown>[]) => void)[] = [
      // A lone surrogate in the description, 1e400 (Infinity once parsed) in a schema, a
      // repeated name and an entry with no name: all in tools the host did not bind.
      (tools) => tools.push({ name: "lone", description: "bad \ud800", inputSchema: {} }),
      (tools) => tools.push({ name: "huge", inputSchema: { type: "object", maximum: Infinity } }),
      (tools) => tools.push({ ...tools.find((t) => t.name === "write_like")! }),
      (tools) => tools.push({ description: "no name" }),
    ];
    for (const alter of hostile) {
      const { client } = interceptingClient(session.client, (method, result) => {
        if (method === "tools/list") alter((result as { tools: Record<string, unknown>[] }).tools);
      });
      const { monitor } = wireMonitor(session);
      try {
        const found = await discoverTools(client, "fixture", { echo: bind("echo_text") }, {
          monitor,
        });
        assert.deepEqual(found.snapshot.entries.map((entry) => entry.localName), ["echo_text"]);
      } finally {
        monitor.close();
      }
    }
  } finally {
    await session.close();
  }
});

Deno.test("identity: a malformed listing, or a bound tool listed twice, is a protocol error", async () => {
  const session = await openSession("memory-v1");
  const monitors: { close(): void }[] = [];
  try {
    const attempt = async (alter: (result: Record<string, unknown>) => void) => {
      const { client } = interceptingClient(session.client, (method, result) => {
        if (method === "tools/list") alter(result as Record<string, unknown>);
      });
      const { monitor } = wireMonitor(session);
      monitors.push(monitor);
      try {
        await discoverTools(client, "fixture", { echo: bind("echo_text") }, { monitor });
      } catch (error) {
        assert.ok(error instanceof DiscoveryError);
        return error;
      }
      assert.fail("discovery succeeded");
    };
    const duplicate = await attempt((result) => {
      const tools = result.tools as Record<string, unknown>[];
      tools.push({ ...tools.find((t) => t.name === "echo")! });
    });
    assert.equal(duplicate.code, "mcp_protocol_error");
    assert.ok(duplicate.message.includes("echo"), "the bound tool concerned is named");
    const noTools = await attempt((result) => {
      result.tools = "none";
    });
    assert.equal(noTools.code, "mcp_protocol_error");
    const badCursor = await attempt((result) => {
      result.nextCursor = 7;
    });
    assert.equal(badCursor.code, "mcp_protocol_error");
    // The server itself answers a cursor it never issued with a JSON-RPC error.
    let pages = 0;
    const unknownCursor = await attempt((result) => {
      if (pages++ === 0) result.nextCursor = "no-such-cursor";
    });
    assert.equal(unknownCursor.code, "mcp_protocol_error");
    const lists = (await session.log()).filter((entry) => entry.cursor === "no-such-cursor");
    assert.equal(lists.length, 1, "the server received the second page request");
  } finally {
    for (const monitor of monitors) monitor.close();
    await session.close();
  }
});
