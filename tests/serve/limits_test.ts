// `sluice serve` as a public server: a body over the cap is 413 before it is parsed, a client
// over its concurrency limit gets `serve_client_busy` (others are unaffected), and shutdown
// lets calls in flight finish, refuses new requests, and ends a write it had to abort with its
// recorded outcome (`unknown`), never an open claim.
import assert from "node:assert/strict";
import { readLedger, receivedFor } from "../../fixtures/write_ledger.ts";
import { SYNTHETIC_VALUE as VALUE } from "../../fixtures/write_server.ts";
import {
  connectClient,
  IDE_TOKEN,
  outcomeOf,
  READER_TOKEN,
  startEndpoint,
  textOf,
} from "./setup.ts";

Deno.test("serve limits: a body over maxBodyBytes is 413, an allowed Origin passes", async () => {
  const endpoint = await startEndpoint({
    limits: { maxBodyBytes: 4096 },
    allowedOrigins: ["http://127.0.0.1:3000"],
  });
  try {
    const client = await connectClient(endpoint.url, IDE_TOKEN);
    try {
      const small = await client.callTool({ name: "docs__echo", arguments: { message: "ok" } });
      assert.deepEqual(textOf(small), ["ok"]);
      await assert.rejects(() =>
        client.callTool({ name: "docs__echo", arguments: { message: "x".repeat(8000) } })
      );
    } finally {
      await client.close();
    }
    const response = await fetch(endpoint.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${IDE_TOKEN}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        origin: "http://127.0.0.1:3000",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    assert.equal(response.status, 200);
    await response.body?.cancel();
    assert.ok(
      endpoint.events.some((event) =>
        event.kind === "refused" && event.status === 413 && event.client === "ide"
      ),
    );
  } finally {
    await endpoint.close();
  }
});

Deno.test("serve limits: a client over maxConcurrentCalls is told serve_client_busy; another client is not", async () => {
  const endpoint = await startEndpoint({ limits: { maxConcurrentCalls: 1 } });
  try {
    const ide = await connectClient(endpoint.url, IDE_TOKEN);
    const reader = await connectClient(endpoint.url, READER_TOKEN);
    try {
      const slow = ide.callTool({ name: "docs__slow", arguments: { ms: 400 } });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const busy = await ide.callTool({ name: "docs__echo", arguments: { message: "b" } });
      assert.equal(busy.isError, true);
      assert.equal(outcomeOf(busy).errorCode, "serve_client_busy");
      const other = await reader.callTool({ name: "docs__echo", arguments: { message: "r" } });
      assert.deepEqual(textOf(other), ["r"]);
      assert.deepEqual(textOf(await slow), ["slept 400"]);
      const after = await ide.callTool({ name: "docs__echo", arguments: { message: "a" } });
      assert.deepEqual(textOf(after), ["a"], "the slot is given back");
    } finally {
      await ide.close();
      await reader.close();
    }
  } finally {
    await endpoint.close();
  }
});

Deno.test("serve shutdown: calls in flight finish, new requests get 503", async () => {
  const endpoint = await startEndpoint();
  try {
    const client = await connectClient(endpoint.url, IDE_TOKEN);
    const slow = client.callTool({ name: "docs__slow", arguments: { ms: 300 } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(endpoint.served.handler.inFlight(), 1);
    const closing = endpoint.served.close();
    const late = await fetch(endpoint.url, {
      method: "POST",
      headers: { authorization: `Bearer ${IDE_TOKEN}`, "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(late.status, 503);
    assert.equal(late.headers.get("retry-after"), "1");
    await late.body?.cancel();
    assert.deepEqual(textOf(await slow), ["slept 300"]);
    await closing;
    assert.equal(endpoint.served.handler.inFlight(), 0);
    await client.close().catch(() => {});
  } finally {
    await endpoint.close();
  }
});

Deno.test("serve shutdown: a write still in flight after shutdownTimeoutMs ends recorded unknown, never open", async () => {
  const endpoint = await startEndpoint({
    scenario: "lost-response",
    limits: { shutdownTimeoutMs: 300 },
  });
  try {
    const client = await connectClient(endpoint.url, IDE_TOKEN);
    const args = { key: "k9", value: VALUE };
    const pending = await client.callTool({ name: "records__write_record", arguments: args });
    const approvalId = outcomeOf(pending).approvalId as string;
    await endpoint.store.approve(approvalId, { by: "alice" });
    const sent = client.callTool({ name: "records__write_record", arguments: args });
    // Wait until the upstream has the call (its ledger says received), then shut down.
    for (let i = 0; i < 100; i++) {
      if (receivedFor(await readLedger(endpoint.ws.ledger), "k9").length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await endpoint.served.close();
    const result = await sent;
    assert.equal(outcomeOf(result).effect, "unknown");
    assert.equal(outcomeOf(result).errorCode, "mcp_aborted");
    assert.equal((await endpoint.store.get(approvalId))?.state, "unknown");
    await client.close().catch(() => {});
  } finally {
    await endpoint.close();
  }
});

Deno.test("serve limits: a client over requestsPerMinute gets 429 serve_rate_limited; another client is not", async () => {
  // One request a minute after a burst of 4: the client's handshake and a call use the burst.
  const endpoint = await startEndpoint({ limits: { requestsPerMinute: 1, burstRequests: 4 } });
  const post = (token: string, id: number) =>
    fetch(endpoint.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", params: {} }),
    });
  try {
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let id = 1; id <= 6; id++) {
      const response = await post(IDE_TOKEN, id);
      statuses.push(response.status);
      if (response.status === 429 && refused === undefined) refused = response;
      else await response.body?.cancel();
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
    assert.equal(refused!.headers.get("retry-after"), "60");
    const body = await refused!.json();
    assert.equal(body.id, 5);
    assert.equal(body.error.code, -32029);
    assert.equal(body.error.data.errorCode, "serve_rate_limited");
    assert.ok(body.error.data.retryAfterMs > 50_000);
    // Another client has its own bucket.
    const other = await post(READER_TOKEN, 1);
    assert.equal(other.status, 200);
    await other.body?.cancel();
    assert.equal(
      endpoint.events.filter((event) =>
        event.kind === "refused" && event.errorCode === "serve_rate_limited" &&
        event.client === "ide"
      ).length,
      2,
    );
    // A real SDK client over its limit fails the request; nothing reaches the upstream.
    const client = await connectClient(endpoint.url, READER_TOKEN);
    let answered = 0;
    try {
      await assert.rejects(async () => {
        for (let i = 0; i < 5; i++) {
          await client.callTool({ name: "docs__echo", arguments: { message: "x" } });
          answered++;
        }
      }, /429|rate/i);
    } finally {
      await client.close();
    }
    assert.ok(answered < 5);
  } finally {
    await endpoint.close();
  }
});

Deno.test("serve limits: burstRequests without requestsPerMinute, or a bad rate, is serve_config_invalid", async () => {
  const { serveLimits } = await import("../../src/serve/limits.ts");
  assert.throws(() => serveLimits({ burstRequests: 3 }), { code: "serve_config_invalid" });
  assert.throws(() => serveLimits({ requestsPerMinute: 0 }), { code: "serve_config_invalid" });
  assert.throws(() => serveLimits({ requestsPerMinute: 1.5 }), { code: "serve_config_invalid" });
  assert.equal(serveLimits({ requestsPerMinute: 600 }).burstRequests, 100);
  assert.equal(serveLimits().requestsPerMinute, undefined);
});
