/**
 * How often connect() lists a server again on its own, against the v1 SDK's stateful server
 * (standalone GET stream) made hostile: a notice 5 ms after every listing, one burst of 1,000
 * notices, a notice every 20 ms. Each 3 s window holds at most the number of listings the
 * bound in docs/drift.md allows (`floor(T / I) + 1` for a window of T ms and the minimum
 * interval I, 1 s by default): counted at the server, whatever the machine's speed. And a
 * burst that changes nothing leaves the tools current once a listing begun after its last
 * notice has found them unchanged. Deno's op and resource sanitizers are on.
 */
import assert from "node:assert/strict";
import { eventually } from "../support/drift.ts";
import { connect, type Connection } from "../../mod.ts";
import {
  type LegacyHttpServer,
  type LegacyHttpServerOptions,
  startLegacyHttpServer,
} from "../../fixtures/legacy_server_http.ts";

/** The default minimum interval between two listings begun by connect() itself. */
const INTERVAL_MS = 1_000;
const WINDOW_MS = 3_000;

/** docs/drift.md: listings begun by connect() itself in any window of `windowMs`. */
function maxListings(windowMs: number, intervalMs = INTERVAL_MS): number {
  return Math.floor(windowMs / intervalMs) + 1;
}

/** Listings the server received. */
function listings(server: LegacyHttpServer): number {
  return server.log.filter((entry) => entry.method === "tools/list").length;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * connect() with change detection to a fixture server; the stream lives a minute, so only
 * sluice's own listings can make a tool current again within a test.
 */
async function watched(
  options: LegacyHttpServerOptions = {},
  minRelistIntervalMs?: number,
): Promise<{ server: LegacyHttpServer; connection: Connection }> {
  const server = await startLegacyHttpServer(options);
  const connection = await connect(server.url, {
    ...(minRelistIntervalMs !== undefined ? { minRelistIntervalMs } : {}),
    id: "docs",
    allow: ["echo", "add"],
    preApproved: ["echo", "add"],
    changeDetection: true,
    transport: { dangerouslyAllowLoopback: true, timeoutMs: 60_000 },
  });
  assert.equal(connection.report().servers[0].changeDetection, "get_stream");
  return { server, connection };
}

/** Runs `storm` for a window of about 3 s; returns the listings in it and its length. */
async function window(server: LegacyHttpServer, storm: () => () => void) {
  const before = listings(server);
  const start = performance.now();
  const stop = storm();
  await sleep(WINDOW_MS);
  stop();
  const count = listings(server) - before;
  return { count, windowMs: performance.now() - start };
}

/** A notice every 20 ms until stopped. */
function every20ms(server: LegacyHttpServer): () => void {
  const timer = setInterval(() => server.announce(1), 20);
  return () => clearInterval(timer);
}

interface Pattern {
  readonly name: string;
  readonly server?: LegacyHttpServerOptions;
  readonly intervalMs?: number;
  /** Starts the notices; returns what stops them. */
  readonly storm: (server: LegacyHttpServer) => () => void;
  /** Listings the window holds at least: the notices are heard. */
  readonly atLeast: number;
  /** Whether the notices stop, so the tools must end current. */
  readonly ends: boolean;
}

const PATTERNS: readonly Pattern[] = [
  {
    // The storm starts with connect()'s own listing; the window starts after it.
    name: "a notice 5 ms after every listing",
    server: { announceAfterListMs: 5 },
    storm: () => () => {},
    atLeast: 2,
    ends: false,
  },
  {
    name: "a burst of 1,000 notices",
    storm: (server) => {
      server.announce(1_000);
      return () => {};
    },
    atLeast: 1,
    ends: true,
  },
  { name: "a notice every 20 ms", storm: every20ms, atLeast: 2, ends: true },
  {
    name: "a notice every 20 ms, minRelistIntervalMs 250",
    intervalMs: 250,
    storm: every20ms,
    atLeast: 2,
    ends: true,
  },
];

for (const pattern of PATTERNS) {
  const interval = pattern.intervalMs ?? INTERVAL_MS;
  Deno.test(`re-listing: ${pattern.name} gets at most floor(T / ${interval} ms) + 1 listings`, async () => {
    const { server, connection } = await watched(pattern.server, pattern.intervalMs);
    try {
      const { count, windowMs } = await window(server, () => pattern.storm(server));
      assert.ok(count >= pattern.atLeast, `the notices are heard (${count} listings)`);
      const most = maxListings(windowMs, interval);
      assert.ok(count <= most, `${count} listings in ${Math.round(windowMs)} ms, at most ${most}`);
      if (!pattern.ends) return;
      // The notices changed nothing: once listed again after the last, every tool is current.
      await eventually(
        () => connection.report().servers[0].staleTools === undefined,
        "a listing after the last notice confirmed the tools",
      );
      const called = await connection.toolkit.call("docs__add", { a: 1, b: 2 });
      assert.equal(called.errorCode, undefined);
      assert.deepEqual(connection.revisions(), []);
    } finally {
      await connection.close();
      await server.close();
    }
  });
}

Deno.test("re-listing: notices in the replies of three listings in a row; the next listing makes the tools current", async () => {
  // Each of the next three listings hears 50 more notices (before its own result, on its
  // reply stream): a change is still unresolved after each of them. Only a listing begun
  // after the last notice can find the tools unchanged.
  const { server, connection } = await watched({ sseReplies: true });
  try {
    const before = listings(server);
    server.announceInListReplies(3, 50);
    server.announce(1);
    await eventually(() => listings(server) >= before + 3, "three listings with notices");
    await eventually(
      () => connection.report().servers[0].staleTools === undefined,
      "a listing after the last notice confirmed the tools",
    );
    assert.equal(listings(server), before + 4, "one listing after the three, and no more");
    const called = await connection.toolkit.call("docs__add", { a: 1, b: 2 });
    assert.notEqual(called.errorCode, "mcp_catalog_stale");
    assert.equal(called.errorCode, undefined);
  } finally {
    await connection.close();
    await server.close();
  }
});
