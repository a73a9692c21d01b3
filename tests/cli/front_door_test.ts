/**
 * The CLI's first minutes, as real processes: `sluice inspect` of a loopback server without
 * `--allow-loopback` names the flag; `inspect --init` writes a configuration that connects to
 * the server it inspected (the written file is imported and handed to `connectAll()`); and
 * `sluice inbox` without `--as` decides as the login name, as its help says, also where the
 * environment has no `USER`.
 */
import assert from "node:assert/strict";
import { userInfo } from "node:os";
import { connectAll, type ConnectAllConfig } from "../../mod.ts";
import { startHttpServer } from "../../fixtures/read_server_http.ts";
import { LibsqlApprovalStore } from "../../libsql.ts";
import type { StarterConfig } from "../../src/cli/inspect_report.ts";
import { runSluice } from "../support/run_script.ts";
import { startInboxCli } from "../support/inbox_browser.ts";

Deno.test("sluice inspect of a loopback server without --allow-loopback names the flag", async () => {
  const server = await startHttpServer();
  try {
    for (const url of [server.url.href, `http://localhost:${server.url.port}/mcp`]) {
      const run = await runSluice(["inspect", url]);
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, /^refused: transport_(scheme|host)_refused: /);
      assert.match(run.stderr, /^hint: .*--allow-loopback/m, run.stderr);
      assert.ok(!run.stderr.includes("dangerouslyAllowLoopback }"), run.stderr);
    }
    assert.equal(server.log.length, 0, "a refused URL reached the server");
    // Nothing listening: what to check, not a bare code.
    const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (probe.addr as Deno.NetAddr).port;
    probe.close();
    const down = await runSluice(["inspect", `http://127.0.0.1:${port}/mcp`, "--allow-loopback"]);
    assert.equal(down.code, 1);
    assert.match(down.stderr, /^refused: transport_failed: /);
    assert.match(down.stderr, /^hint: .*check that the server is running/m);
  } finally {
    await server.close();
  }
});

Deno.test("sluice inspect --init of a loopback server writes a config that connect() gets ready tools from", async () => {
  const server = await startHttpServer();
  const dir = await Deno.makeTempDir({ prefix: "sluice-init-" });
  try {
    const module = await runSluice(["inspect", server.url.href, "--allow-loopback", "--init"]);
    assert.equal(module.code, 0, module.stderr);
    await Deno.writeTextFile(`${dir}/sluice.config.ts`, module.stdout);
    const written = await import(`file://${dir}/sluice.config.ts`) as { config: ConnectAllConfig };
    const json = await runSluice([
      "inspect",
      server.url.href,
      "--allow-loopback",
      "--init",
      "--json",
    ]);
    assert.equal(json.code, 0, json.stderr);
    const starter = JSON.parse(json.stdout) as StarterConfig;
    assert.deepEqual(starter.config.transport, { dangerouslyAllowLoopback: true });
    for (const config of [written.config, starter.config as ConnectAllConfig]) {
      assert.deepEqual(config.transport, { dangerouslyAllowLoopback: true });
      const connection = await connectAll(config);
      try {
        const report = connection.report();
        assert.equal(report.servers[0].status, "ready");
        assert.deepEqual(
          report.ready.map((tool) => tool.tool).toSorted(),
          config.allow.map((entry) => entry.slice(entry.indexOf(".") + 1)).toSorted(),
        );
        assert.ok(report.ready.length > 5, `${report.ready.length} ready tools`);
      } finally {
        await connection.close();
      }
    }
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sluice inbox without --as decides as the login name, also with no USER in the environment", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-inbox-as-" });
  const db = `${dir}/approvals.db`;
  await (await LibsqlApprovalStore.open(db)).close();
  const login = userInfo().username;
  // Only what a process needs to run: no USER, LOGNAME or USERNAME.
  const env = { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? dir };
  const inbox = await startInboxCli(db, undefined, 30_000, env);
  try {
    assert.match(inbox.printed, new RegExp(`decided as ${login}, on http://127\\.0\\.0\\.1:`));
  } finally {
    await inbox.stop();
    await Deno.remove(dir, { recursive: true });
  }
  const help = await runSluice(["inbox", "--help"]);
  assert.match(help.stdout, /default: your login name/);
});
