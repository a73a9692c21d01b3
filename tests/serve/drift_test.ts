// Drift through `sluice serve`: the served list stays pinned when the upstream changes its tools;
// the change is staged as a revision, and only when it is accepted do the downstream clients get
// `notifications/tools/list_changed` (a real v2 SDK client on a `subscriptions/listen` stream
// over HTTP, and one over an in-memory stdio-like carrier) and the new definitions.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { serve } from "../../serve.ts";
import { serveOnTransport } from "../../src/serve/stdio.ts";
import { startHttpServer } from "../../fixtures/read_server_http.ts";
import { addBccToAdd, eventually } from "../support/drift.ts";
import { connectClient, docsConfig, IDE_TOKEN, outcomeOf } from "./setup.ts";

const TOOLS = ["echo", "add", "json_text"];

async function drifting() {
  const upstream = await startHttpServer();
  const served = await serve(
    docsConfig(upstream.url, TOOLS, { clients: [{ name: "ide", token: IDE_TOKEN }] }, {
      changeDetection: true,
    }),
  );
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, served.fetch);
  return {
    upstream,
    served,
    url: new URL(`http://127.0.0.1:${server.addr.port}/mcp`),
    async close() {
      await served.close();
      await server.shutdown();
      await upstream.close();
    },
  };
}

function descriptionOf(tools: readonly { name: string; description?: string }[], name: string) {
  return tools.find((tool) => tool.name === name)?.description;
}

Deno.test("serve drift: the list stays pinned until accepted; list_changed reaches the client only then", async () => {
  const gateway = await drifting();
  const client = await connectClient(gateway.url, IDE_TOKEN);
  let heard = 0;
  client.setNotificationHandler("notifications/tools/list_changed", () => {
    heard++;
  });
  const subscription = await client.listen({ toolsListChanged: true });
  try {
    const before = (await client.listTools()).tools;
    const pinned = descriptionOf(before, "docs__echo");
    assert.equal(typeof pinned, "string");

    // The upstream changes echo's description and add's schema and announces it.
    addBccToAdd(gateway.upstream.catalog);
    gateway.upstream.catalog.changeTools();
    await eventually(() => gateway.served.revisions().length === 1, "the revision is staged");
    const [revision] = gateway.served.revisions();
    assert.deepEqual(revision.diff.changed.map((change) => change.tool), ["add", "echo"]);

    // Staged, not accepted: the client is told nothing and is served the pinned list; the
    // changed tools refuse to run (stale) rather than run under the new definition.
    const during = (await client.listTools()).tools;
    assert.deepEqual(during, before);
    const stale = await client.callTool({ name: "docs__echo", arguments: { message: "x" } });
    assert.equal(outcomeOf(stale).errorCode, "mcp_catalog_stale");
    // An unchanged tool is still sent upstream (its result check is its own business).
    const unchanged = await client.callTool({ name: "docs__json_text", arguments: { a: 1, b: 2 } });
    assert.notEqual(outcomeOf(unchanged).errorCode, "mcp_catalog_stale");
    assert.equal(heard, 0, "no list_changed before the revision is accepted");

    await gateway.served.accept(revision);
    await eventually(() => heard === 1, "list_changed after accept");
    const after = (await client.listTools()).tools;
    assert.notEqual(descriptionOf(after, "docs__echo"), pinned);
    assert.ok(
      "bcc" in (after.find((tool) => tool.name === "docs__add")!.inputSchema.properties ?? {}),
    );
    const echo = await client.callTool({ name: "docs__echo", arguments: { message: "x" } });
    assert.equal(echo.isError, undefined);
    // Nothing new to announce: a second sync sends nothing.
    assert.equal(gateway.served.handler.toolsChanged(), false);
    await client.listTools();
    assert.equal(heard, 1);
  } finally {
    await subscription.close();
    await client.close();
    await gateway.close();
  }
});

Deno.test("serve drift: over a stdio carrier the one client hears an accepted change, not a staged one", async () => {
  const gateway = await drifting();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const stdio = await serveOnTransport(gateway.served.connection.toolkit, {
    client: { name: "desktop" },
  }, serverSide);
  const client = new Client({ name: "drift-test", version: "0" }, {
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    versionNegotiation: { mode: "legacy" },
  });
  let heard = 0;
  client.setNotificationHandler("notifications/tools/list_changed", () => {
    heard++;
  });
  await client.connect(clientSide);
  try {
    const before = (await client.listTools()).tools;
    gateway.upstream.catalog.changeTools();
    await eventually(() => gateway.served.revisions().length === 1, "the revision is staged");
    assert.deepEqual((await client.listTools()).tools, before);
    assert.equal(heard, 0);
    await gateway.served.connection.accept(gateway.served.revisions()[0]);
    assert.equal(stdio.toolsChanged(), true);
    await eventually(() => heard === 1, "list_changed after accept");
    assert.notDeepEqual((await client.listTools()).tools, before);
  } finally {
    await client.close();
    await stdio.close();
    await gateway.close();
  }
});

Deno.test("serve drift: the mounted inbox shows the staged diff; accepting it there tells the client", async () => {
  const upstream = await startHttpServer();
  const served = await serve(
    docsConfig(upstream.url, TOOLS, {
      clients: [{ name: "ide", token: IDE_TOKEN }],
      // The test's sign-in: a person named by a header (the CLI uses a one-time login link).
      inbox: { authorize: (request) => request.headers.get("x-test-person") ?? undefined },
    }, { changeDetection: true }),
  );
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, served.fetch);
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const client = await connectClient(new URL("/mcp", origin), IDE_TOKEN);
  let heard = 0;
  client.setNotificationHandler("notifications/tools/list_changed", () => {
    heard++;
  });
  const subscription = await client.listen({ toolsListChanged: true });
  try {
    const person = { "x-test-person": "dana" };
    const empty = await (await fetch(`${origin}/inbox/revisions`, { headers: person })).text();
    assert.match(empty, /No upstream change waits/);
    const anonymous = await fetch(`${origin}/inbox/revisions`);
    assert.equal(anonymous.status, 401);
    await anonymous.body?.cancel();

    upstream.catalog.changeTools();
    await eventually(() => served.revisions().length === 1, "the revision is staged");
    const [revision] = served.revisions();
    const listing = await (await fetch(`${origin}/inbox/revisions`, { headers: person })).text();
    assert.ok(listing.includes(revision.id), "the page names the revision");
    assert.match(listing, /echo/);
    assert.match(listing, /description/);
    const token = /name="token" value="([^"]+)"/.exec(listing)![1];
    const action = /action="([^"]+\/accept)"/.exec(listing)![1];
    const form = (fields: Record<string, string>, headers: Record<string, string>) =>
      fetch(`${origin}${action}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body: new URLSearchParams(fields),
      });
    // Another person's token, another origin: refused, nothing accepted.
    const foreign = await form({ token, version: revision.id }, {
      "x-test-person": "eve",
      origin,
    });
    assert.equal(foreign.status, 403);
    await foreign.body?.cancel();
    const crossSite = await form({ token, version: revision.id }, {
      ...person,
      origin: "http://evil.example",
    });
    assert.equal(crossSite.status, 403);
    await crossSite.body?.cancel();
    assert.equal(served.revisions().length, 1);
    assert.equal(heard, 0);

    const accepted = await form({ token, version: revision.id }, { ...person, origin });
    assert.match(await accepted.text(), /accepted by dana/);
    await eventually(() => heard === 1, "list_changed after the inbox accepted");
    assert.equal(served.revisions().length, 0);
  } finally {
    await subscription.close();
    await client.close();
    await served.close();
    await server.shutdown();
    await upstream.close();
  }
});
