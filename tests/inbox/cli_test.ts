/**
 * `sluice inbox` in process (`runInboxCli`): usage errors, and a served inbox whose printed
 * one-time link signs in once over real loopback HTTP; and the inbox behind `node:http`.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { approvalInbox, oneTimeLogin, toNodeListener } from "../../inbox.ts";
import { runInboxCli } from "../../src/cli/inbox.ts";
import { MemoryApprovalStore } from "../../src/approvals/memory.ts";
import { makeRequest } from "../support/approval_requests.ts";

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t) },
  };
}

Deno.test("runInboxCli: usage errors exit 2 and serve nothing", async () => {
  for (const argv of [[], ["--db"], ["--db", "x", "--port", "99999"], ["--db", "x", "extra"]]) {
    const { io, err } = capture();
    const code = await runInboxCli(argv, io, {
      openStore: () => Promise.reject(new Error("not opened")),
      serve: () => Promise.reject(new Error("not served")),
      defaultPerson: "alice",
    });
    assert.equal(code, 2, argv.join(" "));
    assert.match(err.join(""), /usage: sluice inbox/);
  }
});

Deno.test("runInboxCli: serves on loopback and prints a link that signs in once", async () => {
  const store = new MemoryApprovalStore();
  const record = await store.prepare(await makeRequest(Date.now()));
  const { io, out } = capture();
  let stop: (() => Promise<void>) | undefined;
  let listening: (() => void) | undefined;
  const ready = new Promise<void>((resolve) => listening = resolve);
  const running = runInboxCli(["--db", "memory", "--port", "0", "--as", "carol"], io, {
    openStore: () => Promise.resolve(store),
    serve: (handler, address) => {
      assert.equal(address.hostname, "127.0.0.1");
      const server = Deno.serve({ ...address, onListen() {} }, handler);
      stop = () => server.shutdown();
      queueMicrotask(() => listening!());
      return Promise.resolve({ port: server.addr.port, finished: server.finished });
    },
  });
  await ready;
  try {
    // The link is printed right after serve returns.
    for (let i = 0; i < 1000 && !out.join("").includes("sign in:"); i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    const link = /sign in: (\S+)/.exec(out.join(""))![1];
    assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\/login\?token=[A-Za-z0-9_-]{43}$/);
    const origin = new URL(link).origin;
    assert.equal((await (await fetch(`${origin}/`)).text()).includes("inbox_unauthorized"), true);
    const exchange = await fetch(link, { redirect: "manual" });
    await exchange.body?.cancel();
    assert.equal(exchange.status, 303);
    const cookie = exchange.headers.get("set-cookie")!.split(";")[0];
    const page = await fetch(`${origin}/approvals/${record.id}`, { headers: { cookie } });
    const body = await page.text();
    assert.equal(page.status, 200);
    assert.match(body, /signed in as <b id="person">carol<\/b>/);
    const again = await fetch(link, { redirect: "manual" });
    await again.body?.cancel();
    assert.equal(again.status, 401);
  } finally {
    await stop?.();
  }
  assert.equal(await running, 0);
});

Deno.test("toNodeListener: the inbox behind node:http signs in, shows and decides", async () => {
  const store = new MemoryApprovalStore();
  const record = await store.prepare(await makeRequest(Date.now()));
  const login = oneTimeLogin({ person: "dana" });
  const inbox = approvalInbox({ store, authorize: login.authorize });
  const server = createServer(toNodeListener((r) => login.handle(r) ?? inbox(r)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const exchange = await fetch(`${origin}${login.loginPath}`, { redirect: "manual" });
    await exchange.body?.cancel();
    assert.equal(exchange.status, 303);
    const cookie = exchange.headers.get("set-cookie")!.split(";")[0];
    const page = await (await fetch(`${origin}/approvals/${record.id}`, { headers: { cookie } }))
      .text();
    const token = /name="token" value="([^"]+)"/.exec(page)![1];
    const version = /name="version" value="([^"]+)"/.exec(page)![1];
    const decided = await fetch(`${origin}/approvals/${record.id}/decide`, {
      method: "POST",
      headers: { cookie, origin, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token, version, decision: "approve" }),
    });
    await decided.body?.cancel();
    assert.equal(decided.status, 200);
    assert.match(decided.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
    assert.equal((await store.get(record.id))?.decision?.by, "dana");
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
