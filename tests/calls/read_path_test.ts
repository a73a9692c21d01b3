/**
 * The read-path suite, run over five real paths (in-memory v1 and v2 pairs, a v1 stdio
 * subprocess, Streamable HTTP in the 2026-07-28 and 2025-11-25 eras) against the official-SDK
 * fixture servers in `fixtures/`. Every call and discovery error code is produced here against
 * a real server; the server's own request log proves what was (not) sent.
 */
import assert from "node:assert/strict";
import {
  CatalogMonitor,
  DEFAULT_TOOL_LIMITS,
  discoverTools,
  DiscoveryError,
  type DiscoveryResult,
  type ToolEnvelope,
} from "../../mod.ts";
import { gatedRead, gatedReads } from "../support/read_gate.ts";
import { REMOTE_SECRET } from "../../fixtures/read_tools.ts";
import { openSession, SESSION_KINDS, waitFor, withSession } from "../support/sessions.ts";
import {
  bind,
  CALL_TOOLS,
  callBindings,
  callsOf,
  discover,
  interceptingClient,
  wireMonitor,
} from "../support/read_host.ts";

/** The read tool `localName` of a discovery result, run through a read-only gate. */
const byLocal = gatedRead;

function assertFailure(envelope: ToolEnvelope<string>, code: string): void {
  // Schema refusals also say where the arguments broke the schema (checked on their own).
  const { problems: _problems, ...rest } = envelope;
  assert.deepEqual(rest, { text: [], structured: null, errorCode: code });
}

/** Runs `body` and asserts it rejects with a DiscoveryError of `code`; returns the error. */
async function discoveryFails(body: () => Promise<unknown>, code: string): Promise<DiscoveryError> {
  try {
    await body();
  } catch (error) {
    assert.ok(error instanceof DiscoveryError, `expected DiscoveryError, got ${error}`);
    assert.equal(error.code, code, error.message);
    assert.ok(!error.message.includes(REMOTE_SECRET));
    return error;
  }
  assert.fail(`discovery did not fail (expected ${code})`);
}

const UNBOUND = ["write_like", "unsupported_schema", "task_required", "fixture_change_tools"];

for (const kind of SESSION_KINDS) {
  Deno.test(`read path ${kind}`, async (t) => {
    const session = await openSession(kind);
    try {
      const denied: unknown[] = [];
      const reads = await discover(
        session,
        callBindings({
          echo: (state, args) => {
            denied.push(state);
            return args.message === "forbidden" ? "not in scope" : undefined;
          },
          add: (_state, args) => {
            if (args.a === 13) throw new Error("validator failure");
            return args.a === 0 ? "" : undefined;
          },
        }),
      );
      const { snapshot, registrations, monitor } = reads;

      await t.step("snapshot: bound tools only, sorted, frozen, plain data", () => {
        assert.equal(snapshot.schemaVersion, 1);
        assert.equal(snapshot.serverId, "fixture");
        assert.equal(snapshot.protocolVersion, session.protocolVersion);
        assert.equal(
          snapshot.changeDetection,
          kind === "http-2026" ? "unavailable" : "notifications",
        );
        const locals = snapshot.entries.map((entry) => entry.localName);
        assert.deepEqual(locals, Object.values(CALL_TOOLS).sort());
        assert.deepEqual(registrations.map((r) => r.localName), locals);
        const text = JSON.stringify({ snapshot, registrations });
        for (const name of UNBOUND) assert.ok(!text.includes(name), name);
        const add = snapshot.entries.find((entry) => entry.remoteName === "add")!;
        assert.deepEqual(add.annotations, { readOnlyHint: true });
        assert.deepEqual(add.policy, { mode: "read", title: "Title add_numbers" });
        assert.equal(add.outputSchema?.type, "object");
        assert.equal(snapshot.entries.find((e) => e.remoteName === "echo")!.outputSchema, null);
        assert.ok(Object.isFrozen(snapshot) && Object.isFrozen(snapshot.entries));
        assert.throws(() => {
          (add.inputSchema.properties as Record<string, unknown>).a = { type: "string" };
        }, TypeError);
        assert.throws(() => {
          (snapshot.entries as unknown[]).push({});
        }, TypeError);
        assert.throws(() => {
          (add.policy as { mode: string }).mode = "confirm";
        }, TypeError);
        assert.match(snapshot.revisionDigest, /^sha256:[0-9a-f]{64}$/);
      });

      await t.step("calls: text and structured results", async () => {
        const echo = await byLocal(reads, "echo_text").call({ message: "hello" }, {
          state: "host-state",
        });
        assert.deepEqual(echo, { text: ["hello"], structured: null });
        assert.deepEqual(denied, ["host-state"]);
        const add = await byLocal(reads, "add_numbers").call({ a: 2, b: 3 });
        assert.deepEqual(add, { text: ['{"sum":5}'], structured: { sum: 5 } });
      });

      await t.step("calls: local refusals send nothing", async () => {
        const before = await callsOf(session, "add") + await callsOf(session, "echo");
        const add = byLocal(reads, "add_numbers");
        const wrongType = await add.call({ a: "2", b: 3 });
        assertFailure(wrongType, "mcp_invalid_arguments");
        assert.deepEqual(wrongType.problems, [{ path: "/a", keyword: "type" }]);
        const missing = await add.call({ a: 1 });
        assertFailure(missing, "mcp_invalid_arguments");
        assert.deepEqual(missing.problems, [{ path: "", keyword: "required" }]);
        assertFailure(await add.call([1, 2]), "mcp_invalid_arguments");
        assertFailure(await add.call({ a: 1, b: 2, c: undefined }), "mcp_invalid_arguments");
        assertFailure(await add.call({ a: 0, b: 1 }), "mcp_scope_denied"); // empty string denies
        assertFailure(await add.call({ a: 13, b: 1 }), "mcp_scope_denied"); // a throw denies
        const echo = byLocal(reads, "echo_text");
        assertFailure(await echo.call({ message: "forbidden" }), "mcp_scope_denied");
        assertFailure(
          await echo.call({ message: "x".repeat(70_000) }),
          "mcp_invalid_arguments", // over the 64 KiB argument budget
        );
        const aborted = new AbortController();
        aborted.abort();
        assertFailure(
          await echo.call({ message: "hi" }, { signal: aborted.signal }),
          "mcp_aborted",
        );
        assert.equal(await callsOf(session, "add") + await callsOf(session, "echo"), before);
      });

      await t.step("calls: results that fail closed", async () => {
        const expect: [string, Record<string, unknown>, string][] = [
          ["image", {}, "mcp_result_unsupported"],
          ["audio", {}, "mcp_result_unsupported"],
          ["resource_link", {}, "mcp_result_unsupported"],
          ["embedded_resource", {}, "mcp_result_unsupported"],
          ["is_error", {}, "mcp_tool_error"],
          ["missing_structured", { a: 1, b: 2 }, "mcp_result_invalid"],
          ["invalid_structured", { a: 1, b: 2 }, "mcp_result_invalid"],
          ["json_text", { a: 1, b: 2 }, "mcp_result_invalid"],
          ["oversized", {}, "mcp_result_too_large"],
          ["many_blocks", {}, "mcp_result_too_large"],
          ["throws", {}, "mcp_protocol_error"],
          // A remote error with the v1 SDK's local-timeout code is still a remote error.
          ["timeout_code", {}, "mcp_protocol_error"],
        ];
        for (const [local, args, code] of expect) {
          const envelope = await byLocal(reads, local).call(args);
          assertFailure(envelope, code);
          assert.ok(!JSON.stringify(envelope).includes(REMOTE_SECRET));
          assert.equal(await callsOf(session, local), 1, `${local} sent exactly once`);
        }
        // Within the budgets the same tools succeed.
        const small = await byLocal(reads, "oversized").call({ bytes: 10 });
        assert.deepEqual(small, { text: ["x".repeat(10)], structured: null });
        const few = await byLocal(reads, "many_blocks").call({ count: 128 });
        assert.equal(few.text.length, 128);
      });

      await t.step("calls: deadline and abort stop local waiting", async () => {
        // The deadline bounds the listing too: short enough to end the 1.5 s sleep, long enough
        // for tools/list on a loaded machine.
        const quick = await discover(session, { slow: bind("slow") }, {
          limits: { timeoutMs: 500 },
        });
        const slow = byLocal(quick, "slow");
        assertFailure(await slow.call({ ms: 1_500 }), "mcp_timeout");
        // Had local waiting not stopped, the server would have answered "slept 1500".
        const cancels = async () =>
          (await session.log()).filter((entry) => entry.method === "notifications/cancelled")
            .length;
        const cancelsBefore = await cancels();
        const controller = new AbortController();
        const pending = byLocal(reads, "slow").call({ ms: 1_500 }, {
          signal: controller.signal,
        });
        setTimeout(() => controller.abort(), 50);
        assertFailure(await pending, "mcp_aborted");
        if (kind !== "http-2026") {
          // The SDK tells the server (2026-07-28 over HTTP instead aborts the request's stream).
          assert.ok(
            await waitFor(async () => (await cancels()) > cancelsBefore),
            "the server saw notifications/cancelled",
          );
        }
        // A late result is discarded: the registration still works for the next call.
        const late = await byLocal(reads, "slow").call({ ms: 1 });
        assert.deepEqual(late, { text: ["slept 1"], structured: null });
        quick.monitor.close();
      });

      await t.step("calls: a long-lived caller signal keeps no listener per call", async () => {
        // Counts the abort listeners the signal holds: sluice and the SDK together.
        const controller = new AbortController();
        const signal = controller.signal;
        let listeners = 0;
        const add = signal.addEventListener.bind(signal);
        const remove = signal.removeEventListener.bind(signal);
        signal.addEventListener = (...args: Parameters<typeof add>) => {
          if (args[0] === "abort") listeners++;
          add(...args);
        };
        signal.removeEventListener = (...args: Parameters<typeof remove>) => {
          if (args[0] === "abort") listeners--;
          remove(...args);
        };
        const echo = byLocal(reads, "echo_text");
        for (let i = 0; i < 40; i++) {
          assert.deepEqual(await echo.call({ message: `m${i}` }, { signal }), {
            text: [`m${i}`],
            structured: null,
          });
        }
        assert.equal(listeners, 0, "every listener added for a call was removed");
      });

      await t.step("list change: stale, nothing sent; rediscovery is explicit", async () => {
        let subscription: { close(): Promise<void> } | undefined;
        let current: DiscoveryResult = reads;
        const extra: CatalogMonitor[] = [];
        if (session.sdk === "v2" && kind === "http-2026") {
          // 2026-07-28: changes arrive only on a subscriptions/listen stream the host opens.
          const opened = await session.client.listen({ toolsListChanged: true });
          subscription = opened;
          const { monitor: watched } = wireMonitor(session);
          watched.watchSubscription(opened);
          extra.push(watched);
          const result = await discover(session, callBindings(), { monitor: watched });
          assert.equal(result.snapshot.changeDetection, "subscription");
          assert.equal(result.snapshot.revisionDigest === snapshot.revisionDigest, false);
          current = result;
        }
        try {
          const echo = byLocal(current, "echo_text");
          assert.deepEqual(await echo.call({ message: "before" }), {
            text: ["before"],
            structured: null,
          });
          const sentBefore = await callsOf(session, "echo");
          const seen = session.listChangedCount();
          await session.changeTools();
          assert.ok(await waitFor(() => session.listChangedCount() > seen), "change delivered");
          assertFailure(await echo.call({ message: "after" }), "mcp_catalog_stale");
          assert.equal(await callsOf(session, "echo"), sentBefore, "no tools/call after change");
          // Explicit rediscovery sees the new description and a new digest.
          const next = await discover(session, callBindings());
          extra.push(next.monitor);
          assert.notEqual(next.snapshot.revisionDigest, snapshot.revisionDigest);
          assert.match(
            next.snapshot.entries.find((e) => e.remoteName === "echo")!.description,
            /revision 1/,
          );
          assert.deepEqual(await byLocal(next, "echo_text").call({ message: "x" }), {
            text: ["x"],
            structured: null,
          });
          if (subscription) {
            // Losing the stream fails the catalogs that relied on it closed (stale).
            const watchedEcho = byLocal(
              await discover(session, callBindings(), { monitor: extra[0] }),
              "echo_text",
            );
            await subscription.close();
            subscription = undefined;
            assert.ok(
              await waitFor(async () => {
                const envelope = await watchedEcho.call({});
                return envelope.errorCode === "mcp_catalog_stale";
              }),
            );
          }
        } finally {
          await subscription?.close();
          for (const m of extra) m.close();
        }
      });

      await t.step("closed monitor: calls fail without sending", async () => {
        const fresh = await discover(session, { echo: bind("echo_text") });
        const echo = gatedReads(fresh)[0];
        assert.deepEqual(await echo.call({ message: "open" }), {
          text: ["open"],
          structured: null,
        });
        const sent = await callsOf(session, "echo");
        fresh.monitor.close();
        assertFailure(await echo.call({ message: "closed" }), "mcp_connection_closed");
        assert.equal(await callsOf(session, "echo"), sent);
        await discoveryFails(
          () =>
            discoverTools(session.client, "fixture", { echo: bind("e") }, {
              monitor: fresh.monitor,
            }),
          "mcp_connection_closed",
        );
      });

      await t.step("discovery errors name the bound tool, keyword and path", async () => {
        const schema = await discoveryFails(
          () => discover(session, { unsupported_schema: bind("u"), echo: bind("e") }),
          "mcp_schema_unsupported",
        );
        assert.equal(schema.tool, "unsupported_schema");
        assert.equal(schema.schema, "input");
        assert.equal(schema.keyword, "x-vendor");
        assert.equal(schema.path, "/properties/q/x-vendor");
        // The keyword and the pointer (property names) are the server's text: they are in the
        // fields, never in the message, which names only the bound tool and the problem code.
        assert.match(schema.message, /unsupported_schema.*schema_keyword_unsupported/);
        assert.ok(!schema.message.includes("x-vendor"), schema.message);
        assert.ok(!schema.message.includes("/properties/q"), schema.message);
        if (kind === "http-2026") {
          // The 2026-07-28 revision has no tasks: the SDK drops `execution` from the wire.
          const plain = await discover(session, { task_required: bind("t") });
          assert.equal(plain.snapshot.entries[0].execution, undefined);
          plain.monitor.close();
        } else {
          const task = await discoveryFails(
            () => discover(session, { task_required: bind("t") }),
            "mcp_tool_task_required",
          );
          assert.equal(task.tool, "task_required");
        }
        const missing = await discoveryFails(
          () => discover(session, { echo: bind("e"), no_such_tool: bind("n") }),
          "mcp_tool_missing",
        );
        assert.equal(missing.tool, "no_such_tool");
        const cases: [Record<string, number>, string][] = [
          [{ maxTools: 5 }, "mcp_too_many_tools"],
          [{ maxCatalogBytes: 2_000 }, "mcp_catalog_too_large"],
          [{ maxSchemaBytes: 100 }, "mcp_schema_too_large"],
          [{ maxDescriptionBytes: 10 }, "mcp_description_too_large"],
          [{ maxTools: 10_001 }, "limits_invalid"],
          [{ maxCatalogBytes: 32 * 1024 * 1024 + 1 }, "limits_invalid"],
          [{ maxPages: 1_001 }, "limits_invalid"],
          [{ maxSchemaBytes: 64 * 1024 + 1 }, "limits_invalid"],
          [{ timeoutMs: 300_001 }, "limits_invalid"],
          [{ maxPages: 0 }, "limits_invalid"],
          [{ maxPagez: 1 }, "limits_invalid"],
        ];
        for (const [limits, code] of cases) {
          const error = await discoveryFails(
            () => discover(session, { add: bind("a") }, { limits }),
            code,
          );
          for (const name of UNBOUND) assert.ok(!error.message.includes(name));
        }
      });

      await t.step("server id and discovery abort", async () => {
        const { monitor: fresh } = wireMonitor(session);
        await discoveryFails(
          () => discoverTools(session.client, "", { echo: bind("e") }, { monitor: fresh }),
          "server_id_invalid",
        );
        const aborted = new AbortController();
        aborted.abort();
        await discoveryFails(
          () => discover(session, { echo: bind("e") }, { signal: aborted.signal }),
          "mcp_aborted",
        );
        fresh.close();
      });

      await t.step("binding errors", async () => {
        const policy = { mode: "read" as const, title: "T" };
        const cases: [Record<string, unknown>, string][] = [
          [
            { echo: { localName: "", policy, scope: null, concurrencySafe: false } },
            "binding_invalid_name",
          ],
          [
            { echo: { localName: "has space", policy, scope: null, concurrencySafe: false } },
            "binding_invalid_name",
          ],
          [{ echo: bind("same"), add: bind("same") }, "binding_duplicate_name"],
          [{
            echo: {
              localName: "e",
              policy: { mode: "confirm", title: "T" },
              scope: null,
              concurrencySafe: false,
            },
          }, "binding_policy_invalid"],
          [{
            echo: {
              localName: "e",
              policy: { mode: "read", title: "" },
              scope: null,
              concurrencySafe: false,
            },
          }, "binding_policy_invalid"],
          [{ echo: { localName: "e", policy, concurrencySafe: false } }, "binding_scope_missing"],
          [
            { echo: { localName: "e", policy, scope: "yes", concurrencySafe: false } },
            "binding_scope_missing",
          ],
          [{ echo: { localName: "e", policy, scope: null } }, "binding_invalid"],
          [{}, "binding_invalid"],
        ];
        for (const [bindings, code] of cases) {
          await discoveryFails(() => discover(session, bindings as never), code);
        }
        // Nothing was listed for invalid bindings: they fail before any request.
      });

      await t.step("protocol version must be one sluice accepts", async () => {
        const monitor = new CatalogMonitor();
        assert.equal(monitor.acceptProtocolVersion("2024-11-05"), false);
        await discoveryFails(
          () => discoverTools(session.client, "fixture", { echo: bind("e") }, { monitor }),
          "mcp_protocol_version_unsupported",
        );
        assert.equal(new CatalogMonitor().acceptProtocolVersion(session.protocolVersion), true);
      });

      await t.step("closed session: calls end in mcp_connection_closed", async () => {
        const fresh = await discover(session, { echo: bind("echo_text") });
        const echo = gatedReads(fresh)[0];
        assert.deepEqual(await echo.call({ message: "up" }), { text: ["up"], structured: null });
        await session.close();
        assertFailure(await echo.call({ message: "gone" }), "mcp_connection_closed");
      });
      monitor.close();
    } finally {
      await session.close();
    }
  });
}

for (const kind of SESSION_KINDS) {
  Deno.test(`read path ${kind}: pagination, empty cursor, page budget`, async () => {
    await withSession(kind, { pageSize: 4, emptyCursor: true }, async (session) => {
      // `throws` is on the last page; the second page's cursor is "".
      const found = await discover(session, { throws: bind("throws"), echo: bind("echo_text") });
      assert.deepEqual(found.snapshot.entries.map((e) => e.remoteName), ["echo", "throws"]);
      const cursors = (await session.log()).filter((e) => e.method === "tools/list").map((e) =>
        e.cursor
      );
      assert.equal(cursors[0], undefined);
      assert.equal(cursors[1], "");
      assert.ok(cursors.length >= 5);
      found.monitor.close();
      // Output validators of first-page tools survive the later pages (the v1 SDK's own
      // listTools drops them): sluice validates with its compiled validators.
      const paged = await discover(session, {
        add: bind("add_numbers"),
        invalid_structured: bind("invalid_structured"),
        throws: bind("throws"),
      });
      const [add, invalid] = gatedReads(paged);
      assert.deepEqual(await add.call({ a: 1, b: 2 }), {
        text: ['{"sum":3}'],
        structured: { sum: 3 },
      });
      assertFailure(await invalid.call({ a: 1, b: 2 }), "mcp_result_invalid");
      paged.monitor.close();
      await discoveryFails(
        () => discover(session, { echo: bind("e") }, { limits: { maxPages: 2 } }),
        "mcp_too_many_pages",
      );
    });
  });
}

Deno.test("read path memory-v2: abort stops waiting on a scope validator that never answers", async () => {
  await withSession("memory-v2", {}, async (session) => {
    // The host's validator ignores its signal and never settles.
    const found = await discover(session, {
      echo: bind("echo_text", () => new Promise<undefined>(() => {})),
    });
    const controller = new AbortController();
    const pending = gatedReads(found)[0].call({ message: "hi" }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settled = await Promise.race([
      pending,
      new Promise<"still waiting">((resolve) => {
        timer = setTimeout(() => resolve("still waiting"), 2_000);
      }),
    ]);
    clearTimeout(timer);
    assert.notEqual(settled, "still waiting", "the abort ended local waiting");
    assertFailure(settled as ToolEnvelope, "mcp_aborted");
    assert.equal(await callsOf(session, "echo"), 0);
    found.monitor.close();
  });
});

Deno.test("read path memory-v2: the request deadline also bounds a scope validator that never answers", async () => {
  await withSession("memory-v2", {}, async (session) => {
    let validatorSignal: AbortSignal | undefined;
    const found = await discover(session, {
      echo: bind("echo_text", (_state, _args, signal) => {
        validatorSignal = signal;
        return new Promise<undefined>(() => {});
      }),
    }, { limits: { timeoutMs: 100 } });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settled = await Promise.race([
      gatedReads(found)[0].call({ message: "hi" }),
      new Promise<"still waiting">((resolve) => {
        timer = setTimeout(() => resolve("still waiting"), 2_000);
      }),
    ]);
    clearTimeout(timer);
    assert.notEqual(settled, "still waiting", "the deadline ended local waiting");
    assertFailure(settled as ToolEnvelope, "mcp_timeout");
    assert.equal(validatorSignal?.aborted, true, "the validator was told to stop");
    assert.equal(await callsOf(session, "echo"), 0);
    found.monitor.close();
  });
});

Deno.test("read path memory-v2: the default limits are the issue's and hold against a real server", async () => {
  assert.deepEqual(DEFAULT_TOOL_LIMITS, {
    maxPages: 32,
    maxTools: 256,
    maxCatalogBytes: 1024 * 1024,
    maxSchemaBytes: 64 * 1024,
    maxDescriptionBytes: 8 * 1024,
    maxArgumentBytes: 64 * 1024,
    maxResultBytes: 64 * 1024,
    maxContentBlocks: 128,
    timeoutMs: 30_000,
  });
  // 256 tools on one page pass; 257 do not, with no limit lowered.
  for (const [extraTools, code] of [[256, undefined], [257, "mcp_too_many_tools"]] as const) {
    await withSession("memory-v2", { extraTools, onlyExtraTools: true }, async (session) => {
      const attempt = () => discover(session, { extra_000: bind("first") });
      if (code === undefined) (await attempt()).monitor.close();
      else await discoveryFails(attempt, code);
    });
  }
  // 32 pages pass; a 33rd is never requested.
  for (const [extraTools, code] of [[32, undefined], [33, "mcp_too_many_pages"]] as const) {
    await withSession(
      "memory-v2",
      { extraTools, onlyExtraTools: true, pageSize: 1 },
      async (session) => {
        const attempt = () => discover(session, { extra_000: bind("first") });
        if (code === undefined) (await attempt()).monitor.close();
        else await discoveryFails(attempt, code);
        const lists = (await session.log()).filter((entry) => entry.method === "tools/list");
        assert.equal(lists.length, 32);
      },
    );
  }
});

Deno.test("read path memory-v2: a task handle instead of a result fails closed", async () => {
  await withSession("memory-v2", {}, async (session) => {
    // The real server answers; in transit the answer becomes a task handle (CreateTaskResult),
    // which no fixture tool sends unasked.
    const { client } = interceptingClient(session.client, (method, result) => {
      if (method !== "tools/call") return;
      const raw = result as Record<string, unknown>;
      for (const key of Object.keys(raw)) delete raw[key];
      raw.task = { taskId: "t-1", status: "working", createdAt: "2026-11-30T00:00:00Z" };
    });
    const { monitor } = wireMonitor(session);
    const found = await discoverTools(client, "fixture", { echo: bind("echo_text") }, { monitor });
    assertFailure(await gatedReads(found)[0].call({ message: "hi" }), "mcp_result_unsupported");
    assert.equal(await callsOf(session, "echo"), 1);
    monitor.close();
  });
});
