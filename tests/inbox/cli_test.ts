/**
 * `sluice inbox` in process (`runInboxCli`): usage errors, and a served inbox whose printed
 * one-time link signs in once over real loopback HTTP; the inbox behind `node:http`; and, as
 * real processes, every refusal printed as one `refused: <code>: <message>` line.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { approvalInbox, oneTimeLogin, toNodeListener } from "../../inbox.ts";
import { runInboxCli } from "../../src/cli/inbox.ts";
import { MemoryApprovalStore } from "../../src/approvals/memory.ts";
import { makeRequest } from "../../fixtures/approval_requests.ts";
import { runSluice } from "../support/run_script.ts";
import { createClient } from "@libsql/client";
import { LibsqlApprovalStore } from "../../libsql.ts";

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

Deno.test("sluice inbox prints every refusal as one refused line: a missing, foreign or token-bearing --db, a busy port", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-inbox-cli-" });
  const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const seen: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    seen.push(request.headers.get("authorization") ?? "none");
    return new Response("no", { status: 500 });
  });
  try {
    const foreign = `${dir}/app.sqlite`;
    const client = createClient({ url: `file:${foreign}` });
    await client.execute("CREATE TABLE users (id INTEGER PRIMARY KEY)");
    client.close();
    const store = `${dir}/approvals.db`;
    await (await LibsqlApprovalStore.open(store)).close();
    const local = `http://127.0.0.1:${server.addr.port}`;
    const port = String((busy.addr as Deno.NetAddr).port);
    for (
      const [db, extra, code] of <[string, string[], string][]> [
        [`${dir}/aprovals.db`, [], "cli_db_missing"],
        [foreign, [], "cli_db_not_a_store"],
        [`${local}/?authToken=secret-1`, [], "cli_db_token_in_url"],
        [store, ["--port", port], "cli_inbox_listen_failed"],
        [local, ["--auth-token", "tok-flag"], "approval_store_error"],
      ]
    ) {
      const portFlag = extra.includes("--port") ? [] : ["--port", "0"];
      const run = await runSluice(["inbox", "--db", db, "--as", "alice", ...portFlag, ...extra]);
      assert.equal(run.code, 1, `${db}: ${run.stderr}`);
      assert.match(run.stderr, new RegExp(`^refused: ${code}: [^\\n]+\\n$`), db);
      assert.ok(!run.stderr.includes("secret-1"), "the token is not echoed");
      assert.equal(run.stdout, "", "no login link is printed");
    }
    await assert.rejects(Deno.stat(`${dir}/aprovals.db`), Deno.errors.NotFound, "not created");
    // The token reaches the libSQL server the supported ways, as a bearer token.
    const env = await runSluice(["inbox", "--db", local, "--as", "alice", "--port", "0"], {
      env: { SLUICE_DB_AUTH_TOKEN: "tok-env" },
    });
    assert.match(env.stderr, /^refused: approval_store_error: /);
    assert.deepEqual(seen, ["Bearer tok-flag", "Bearer tok-env"]);
  } finally {
    busy.close();
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
