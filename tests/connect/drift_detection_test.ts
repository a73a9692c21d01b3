/**
 * Change detection in connect(), one server per mechanism: over 2026-07-28 a
 * `subscriptions/listen` stream, over 2025 the standalone GET stream (the v1 SDK's stateful
 * server), and a server with neither whose list results carry a `ttlMs` hint. Each changes one
 * tool's description and another's schema mid-session; the change is heard, the staged
 * revision names exactly those two tools and fields, unchanged tools keep working, the changed
 * ones stay `mcp_catalog_stale` until accepted; `close()` ends the stream or timer (Deno's
 * resource and op sanitizers are on).
 */
import assert from "node:assert/strict";
import { addBccToAdd, eventually } from "../support/drift.ts";
import { type ChangeMechanism, connect, type ConnectEvent } from "../../mod.ts";
import { type HttpServerOptions, startHttpServer } from "../../fixtures/read_server_http.ts";
import { startLegacyHttpServer } from "../../fixtures/legacy_server_http.ts";
import type { ReadCatalog } from "../../fixtures/read_tools.ts";

const LOOPBACK = { dangerouslyAllowLoopback: true, timeoutMs: 5_000 } as const;

/** A running fixture, seen the same way whatever its transport. */
interface Fixture {
  readonly url: URL;
  readonly catalog: ReadCatalog;
  /** JSON-RPC methods received, in order. */
  methods(): string[];
  close(): Promise<void>;
}

interface Scenario {
  readonly name: string;
  readonly mechanism: ChangeMechanism;
  readonly protocolVersion: string;
  start(): Promise<Fixture>;
}

/** The v2 SDK fixture over HTTP (2026-07-28 first). */
async function httpFixture(options: HttpServerOptions = {}): Promise<Fixture> {
  const server = await startHttpServer(options);
  return {
    url: server.url,
    catalog: server.catalog,
    methods: () => server.log.map((entry) => entry.method),
    close: () => server.close(),
  };
}

const SCENARIOS: readonly Scenario[] = [
  {
    name: "2026-07-28 subscriptions/listen",
    mechanism: "subscription",
    protocolVersion: "2026-07-28",
    start: () => httpFixture(),
  },
  {
    name: "2025-11-25 standalone GET stream",
    mechanism: "get_stream",
    protocolVersion: "2025-11-25",
    start: async () => {
      const server = await startLegacyHttpServer();
      return {
        url: server.url,
        catalog: server.catalog,
        methods: () => server.log.map((entry) => entry.method ?? `http:${entry.httpMethod}`),
        close: () => server.close(),
      };
    },
  },
  {
    name: "2026-07-28 without listen: the ttlMs hint",
    mechanism: "ttl",
    protocolVersion: "2026-07-28",
    // No tools.listChanged capability: the listen stream honors nothing, so only the hint.
    start: () => httpFixture({ listChanged: false, ttlMs: 200 }),
  },
];

for (const scenario of SCENARIOS) {
  Deno.test(`connect({ changeDetection }): ${scenario.name} hears a change; revision staged`, async () => {
    const server = await scenario.start();
    const events: ConnectEvent[] = [];
    const connection = await connect(server.url, {
      id: "docs",
      allow: ["echo", "add", "json_text"],
      preApproved: ["echo", "add", "json_text"],
      changeDetection: true,
      transport: LOOPBACK,
      onEvent: (event) => events.push(event),
    });
    const count = (method: string) => server.methods().filter((m) => m === method).length;
    try {
      const report = connection.report().servers[0];
      assert.equal(report.protocolVersion, scenario.protocolVersion);
      assert.equal(report.changeDetection, scenario.mechanism);
      assert.equal(report.staleTools, undefined);
      assert.equal(
        (await connection.toolkit.call("docs__add", { a: 1, b: 2 })).errorCode,
        undefined,
      );
      // Mid-session: add gets a new property, echo a new description; the server announces it
      // on its stream (the ttl server announces nothing: the re-listing finds it).
      addBccToAdd(server.catalog);
      server.catalog.changeTools();
      await eventually(() => connection.revisions().length === 1, "the revision is staged");
      const [revision] = connection.revisions();
      assert.deepEqual(
        revision.diff.changed.map((change) => [change.tool, change.fields]),
        [["add", ["inputSchema"]], ["echo", ["description"]]],
      );
      assert.deepEqual(revision.diff.changed[0].changes.inputSchema, [
        { path: "/properties/bcc", after: { type: "string" } },
      ]);
      assert.deepEqual(revision.diff.unchanged.map((item) => item.tool), ["json_text"]);
      if (scenario.mechanism === "ttl") {
        // Listing again on the hint finds the same change: the same revision, no new event.
        const lists = count("tools/list");
        await eventually(() => count("tools/list") >= lists + 2, "two more listings");
        assert.equal(connection.revisions()[0], revision);
      }
      assert.equal(events.filter((event) => event.kind === "revision").length, 1);
      const sentBefore = count("tools/call");
      const unchanged = await connection.toolkit.call("docs__json_text", { a: 1, b: 2 });
      assert.notEqual(unchanged.errorCode, "mcp_catalog_stale");
      assert.equal(count("tools/call"), sentBefore + 1);
      assert.deepEqual(connection.report().servers[0].staleTools, ["add", "echo"]);
      assert.equal(
        (await connection.toolkit.call("docs__echo", { message: "x" })).errorCode,
        "mcp_catalog_stale",
      );
      assert.equal(
        (await connection.toolkit.call("docs__add", { a: 1, b: 2 })).errorCode,
        "mcp_catalog_stale",
      );
      assert.equal(count("tools/call"), sentBefore + 1, "a stale tool sent nothing");
      await connection.accept(revision);
      assert.deepEqual(
        (await connection.toolkit.call("docs__echo", { message: "x" })).text,
        ["x"],
      );
      assert.equal(connection.report().servers[0].staleTools, undefined);
    } finally {
      await connection.close();
      await server.close();
    }
  });
}
