/**
 * A large real server allowed whole: the Microsoft 365 server's organization-mode list (344
 * tools, 2 MiB, captured in fixtures/schemas/), served by the official v2 SDK in memory. Over the
 * default limits it fails closed with the same codes as ever; with the limits raised explicitly
 * every tool that fits is discovered, in short turns (other work of the host runs while it is
 * checked), and past a ceiling the limit itself is refused.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { InMemoryTransport, type ListToolsResult, Server } from "@modelcontextprotocol/server";
import {
  CatalogMonitor,
  discoverTools,
  DiscoveryError,
  type ReadToolBinding,
  TOOL_LIMIT_CEILINGS,
} from "../../mod.ts";
import { discoveryLimits, selectBound } from "../../src/catalog/selection.ts";
import { listNamedTools } from "../../src/catalog/listing.ts";
import { resolveBindings } from "../../src/catalog/bindings.ts";
import { asSession } from "../../src/session/from_client.ts";
import { screenSelected } from "../../src/catalog/screening.ts";
import { Turns } from "../../src/turns.ts";

const REPORT_ALL = {
  hidden: "report",
  markup: "report",
  shadowing: "report",
  exfiltration: "report",
} as const;

const LIST = JSON.parse(
  Deno.readTextFileSync(
    new URL("../../fixtures/schemas/ms-365-mcp-server-org-mode@0.155.0.json", import.meta.url),
  ),
) as { tools: ({ name: string } & Record<string, unknown>)[] };

async function session() {
  const server = new Server({ name: "m365", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(
    "tools/list",
    () => ({ tools: LIST.tools }) as unknown as ListToolsResult,
  );
  const client = new Client({ name: "test", version: "1.0.0" }, {
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const monitor = new CatalogMonitor();
  clientSide.onmessage = monitor.onMessage;
  await server.connect(serverSide);
  await client.connect(clientSide);
  monitor.acceptProtocolVersion(client.getNegotiatedProtocolVersion());
  return {
    client,
    monitor,
    close: async () => {
      monitor.close();
      await client.close();
      await server.close();
    },
  };
}

const bindings: Record<string, ReadToolBinding> = Object.fromEntries(
  LIST.tools.map((tool, index) => [tool.name, {
    localName: `t${index}`,
    policy: { mode: "read", title: tool.name },
    scope: null,
    concurrencySafe: false,
  }]),
);

Deno.test("a 344-tool, 2 MiB real list: refused at the defaults, discovered whole with the limits raised", async () => {
  const { client, monitor, close } = await session();
  try {
    await assert.rejects(
      discoverTools(client, "m365", bindings, { monitor, onUnfit: "skip" }),
      (error) => error instanceof DiscoveryError && error.code === "mcp_too_many_tools",
    );
    await assert.rejects(
      discoverTools(client, "m365", bindings, {
        monitor,
        onUnfit: "skip",
        limits: { maxTools: 1_000 },
      }),
      (error) => error instanceof DiscoveryError && error.code === "mcp_catalog_too_large",
    );
    await assert.rejects(
      discoverTools(client, "m365", bindings, {
        monitor,
        limits: { maxTools: TOOL_LIMIT_CEILINGS.maxTools + 1 },
      }),
      (error) => error instanceof DiscoveryError && error.code === "limits_invalid",
    );
    const found = await discoverTools(client, "m365", bindings, {
      monitor,
      onUnfit: "skip",
      limits: { maxTools: 1_000, maxCatalogBytes: 4 * 1024 * 1024 },
    });
    assert.equal(found.registrations.length, 341);
    assert.deepEqual(
      found.skipped.map((tool) => [tool.remoteName, tool.error.code]).sort(),
      [
        ["create-sharepoint-list", "mcp_schema_too_large"],
        ["create-team-channel", "mcp_schema_too_large"],
        ["update-team-channel", "mcp_schema_too_large"],
      ],
    );
  } finally {
    await close();
  }
});

Deno.test("checking 344 large tools gives the event loop back: a timer set before it runs before it ends", async () => {
  const { client, monitor, close } = await session();
  try {
    const limits = discoveryLimits({ maxTools: 1_000, maxCatalogBytes: 4 * 1024 * 1024 });
    const resolved = resolveBindings(bindings);
    const listing = await listNamedTools(
      asSession(client),
      monitor,
      new Set(resolved.keys()),
      limits,
      undefined,
    );
    // The selection awaits nothing but its own turns: without them it ends before any timer.
    let timerRan = false;
    setTimeout(() => timerRan = true, 0);
    const selection = await selectBound({
      serverId: "m365",
      bindings: resolved,
      monitor,
      limits,
      listing,
      onUnfit: "skip",
    });
    assert.equal(selection.selected.length, 341);
    assert.ok(timerRan, "the checks of 344 tools ran in one turn");
  } finally {
    await close();
  }
});

Deno.test("screening 344 large tools gives the event loop back: a timer set before it runs before it ends", async () => {
  // The screen alone (every tool read, each class reported), with discovery's short turns.
  const turns = new Turns();
  let timerRan = false;
  setTimeout(() => timerRan = true, 0);
  const verdicts = await screenSelected(LIST.tools, { policy: REPORT_ALL }, () => turns.next());
  assert.equal(verdicts.size, LIST.tools.length);
  assert.ok(timerRan, "the screen of 344 tools ran in one turn");
});

Deno.test("Turns.next() waits on a timer only when timers had no turn for two turns; a message otherwise", async () => {
  // Every yield a setTimeout(0) resumed 2.2-2.4 ms later in Deno 2.9 (a discovery of a large
  // list yields 6-10 times); a message resumes at once but does not always let due timers run.
  const original = globalThis.setTimeout;
  let timers = 0;
  globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
    timers++;
    return original(...args);
  }) as typeof setTimeout;
  let yields = 0;
  try {
    const turns = new Turns();
    for (let round = 0; round < 6; round++) {
      // Spend a whole turn, so the next call yields.
      const start = performance.now();
      while (performance.now() - start <= 8.5) { /* busy */ }
      const pending = turns.next();
      if (pending !== undefined) yields++;
      await pending;
    }
  } finally {
    globalThis.setTimeout = original;
  }
  assert.equal(yields, 6);
  // Turns of 8.5 ms: a timer at most every second yield (at least one, so timers get theirs).
  assert.ok(timers >= 1 && timers <= 3, `${timers} of 6 yields waited on a timer`);
});
