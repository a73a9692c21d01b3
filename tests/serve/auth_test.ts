// Who may call `sluice serve`: a request without a configured client's bearer token is 401 with
// WWW-Authenticate and never a tool list; each client sees and calls only its allowlist; a
// browser origin is refused; the configuration is checked before anything is contacted.
import assert from "node:assert/strict";
import { serve, ServeClients, ServeError } from "../../serve.ts";
import { MemoryApprovalStore } from "../../mod.ts";
import { connectClient, IDE_TOKEN, outcomeOf, READER_TOKEN, startEndpoint } from "./setup.ts";

const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });

async function post(url: URL, headers: Record<string, string>, body = LIST): Promise<Response> {
  return await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body,
  });
}

Deno.test("serve auth: no token or a wrong one is 401 with WWW-Authenticate, never a tool list", async () => {
  const endpoint = await startEndpoint();
  try {
    const cases: [Record<string, string>, string][] = [
      [{}, 'Bearer realm="sluice"'],
      [{ authorization: `Bearer ${IDE_TOKEN}x` }, 'Bearer realm="sluice", error="invalid_token"'],
      [
        { authorization: `Basic ${btoa(`ide:${IDE_TOKEN}`)}` },
        'Bearer realm="sluice", error="invalid_token"',
      ],
      [
        { authorization: `Bearer ${IDE_TOKEN.slice(0, -1)}` },
        'Bearer realm="sluice", error="invalid_token"',
      ],
    ];
    for (const [headers, challenge] of cases) {
      const response = await post(endpoint.url, headers);
      const body = await response.text();
      assert.equal(response.status, 401);
      assert.equal(response.headers.get("www-authenticate"), challenge);
      assert.doesNotMatch(body, /docs__|records__|echo/);
      assert.deepEqual(JSON.parse(body), { error: "serve_unauthorized" });
    }
    // The right token gets the list over the same raw request.
    const ok = await post(endpoint.url, { authorization: `Bearer ${IDE_TOKEN}` });
    assert.equal(ok.status, 200);
    assert.match(await ok.text(), /docs__echo/);

    // The official client without a token does not get in either.
    await assert.rejects(() => connectClient(endpoint.url, undefined));
    const refused = endpoint.events.filter((event) => event.kind === "refused");
    assert.ok(refused.length >= 5);
    assert.ok(refused.every((event) => event.kind === "refused" && event.status === 401));
    assert.ok(!JSON.stringify(endpoint.events).includes(IDE_TOKEN.slice(0, 20)), "no token");
  } finally {
    await endpoint.close();
  }
});

Deno.test("serve auth: a client's allowlist hides the other tools, and calling one is unknown_tool", async () => {
  const endpoint = await startEndpoint();
  try {
    const client = await connectClient(endpoint.url, READER_TOKEN);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name), ["docs__echo"]);
      const echo = await client.callTool({ name: "docs__echo", arguments: { message: "x" } });
      assert.equal(echo.isError, undefined);
      for (const name of ["docs__add", "records__write_record"]) {
        const hidden = await client.callTool({ name, arguments: { key: "k", value: "v" } });
        assert.equal(outcomeOf(hidden).errorCode, "unknown_tool", name);
      }
      // The hidden write never reached the store.
      assert.deepEqual(await endpoint.store.list(), []);
      const calls = endpoint.events.filter((event) => event.kind === "call");
      assert.ok(calls.every((event) => event.kind === "call" && event.client === "reader"));
    } finally {
      await client.close();
    }
  } finally {
    await endpoint.close();
  }
});

Deno.test("serve auth: a request with an Origin is refused 403 (no origin is allowed by default)", async () => {
  const endpoint = await startEndpoint();
  try {
    const response = await post(endpoint.url, {
      authorization: `Bearer ${IDE_TOKEN}`,
      origin: "http://evil.example",
    });
    assert.equal(response.status, 403);
    assert.deepEqual(await response.json(), { error: "serve_origin_refused" });
  } finally {
    await endpoint.close();
  }
});

Deno.test("serve auth: clients are checked when the endpoint is built, tokens never echoed", async () => {
  const long = "t".repeat(32);
  const bad: unknown[] = [
    [],
    [{ name: "a", token: "short" }],
    [{ name: "a b", token: long }],
    [{ name: "a", token: long }, { name: "a", token: long + "x" }],
    [{ name: "a", token: long }, { name: "b", token: long }],
    [{ name: "a", token: long, allow: ["x.y"] }],
    [{ name: "a", token: `${long} x` }],
  ];
  for (const clients of bad) {
    const error = await ServeClients.of(clients as never).then(() => undefined, (e) => e);
    assert.ok(error instanceof ServeError, JSON.stringify(clients));
    assert.equal(error.code, "serve_config_invalid");
    assert.ok(!error.message.includes(long), "the message never holds a token");
  }
  // A client allowlist naming no allowed tool is refused before any server is contacted.
  const error = await serve({
    servers: [{ id: "docs", url: "http://127.0.0.1:9/mcp" }],
    allow: ["docs.echo"],
    store: new MemoryApprovalStore(),
    allowNonDurableStoreForTests: true,
    transport: { dangerouslyAllowLoopback: true },
    serve: { clients: [{ name: "a", token: long, allow: ["docs__add"] }] },
  }).then(() => undefined, (e) => e);
  assert.ok(error instanceof ServeError);
  assert.equal(error.code, "serve_config_invalid");
});

Deno.test("serve auth: each configured token finds its client, before and after near misses", async () => {
  const a = "a".repeat(40);
  const b = `${"a".repeat(39)}b`;
  const clients = await ServeClients.of([{ name: "one", token: a }, { name: "two", token: b }]);
  for (let round = 0; round < 2; round++) {
    assert.equal((await clients.identify(`Bearer ${a}`))?.name, "one");
    assert.equal((await clients.identify(`bearer ${b}`))?.name, "two");
    for (
      const near of [a.slice(0, -1), `${a}a`, `${"a".repeat(39)}c`, a.toUpperCase(), ` ${a}`, ""]
    ) {
      assert.equal(await clients.identify(`Bearer ${near}`), undefined, near);
    }
    assert.equal(await clients.identify(a), undefined);
    assert.equal(await clients.identify(null), undefined);
  }
});
