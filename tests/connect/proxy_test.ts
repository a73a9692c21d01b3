/**
 * connect() against the real `mcp-proxy` (pinned in `deno.json`), an independent 2026-07-28
 * server implementation, in front of the real server-everything over stdio: stateful and
 * `--stateless`, both negotiating 2026-07-28. The proxy runs in its own Deno process on
 * loopback (`fixtures/mcp_proxy.ts`); it and the stdio server it spawned are stopped and proven
 * gone by PID.
 */
import assert from "node:assert/strict";
import { connect } from "../../mod.ts";
import { processGone } from "../../fixtures/process.ts";
import { startLoopbackServer } from "../../fixtures/connect_servers.ts";

const EVERYTHING = new URL("../../fixtures/server_everything.ts", import.meta.url).pathname;

for (const mode of ["stateful", "stateless"] as const) {
  Deno.test(`mcp-proxy (${mode}) before server-everything: connect() speaks 2026-07-28`, async () => {
    const proxy = await startLoopbackServer("mcp_proxy.ts", [
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--server",
      "stream",
      ...(mode === "stateless" ? ["--stateless"] : []),
      "--",
      Deno.execPath(),
      "run",
      "-A",
      "--quiet",
      EVERYTHING,
      "stdio",
    ]);
    let children: number[] = [];
    try {
      const connection = await connect(proxy.url, {
        id: "proxied",
        allow: ["echo", "get-sum", "get-structured-content"],
        preApproved: ["echo", "get-sum", "get-structured-content"],
        transport: { dangerouslyAllowLoopback: true, timeoutMs: 10_000 },
      });
      try {
        const report = connection.report();
        assert.equal(report.servers[0].status, "ready");
        assert.equal(report.servers[0].era, "2026-07-28");
        assert.equal(report.servers[0].protocolVersion, "2026-07-28");
        assert.deepEqual(report.skipped, []);
        assert.deepEqual(report.ready.map((tool) => tool.tool).sort(), [
          "echo",
          "get-structured-content",
          "get-sum",
        ]);
        assert.deepEqual(await connection.toolkit.call("proxied__echo", { message: "hi" }), {
          text: ["Echo: hi"],
          structured: null,
        });
        const sum = await connection.toolkit.call("proxied__get-sum", { a: 2, b: 3 });
        assert.equal(sum.errorCode, undefined);
        assert.match(sum.text.join(" "), /5/);
        const weather = await connection.toolkit.call("proxied__get-structured-content", {
          location: "Chicago",
        });
        assert.equal(weather.errorCode, undefined);
        assert.deepEqual(Object.keys(weather.structured as Record<string, unknown>).sort(), [
          "conditions",
          "humidity",
          "temperature",
        ]);
        // Invalid arguments never leave the process.
        const invalid = await connection.toolkit.call("proxied__get-sum", { a: "two" });
        assert.equal(invalid.errorCode, "mcp_invalid_arguments");
        assert.equal(connection.report().servers[0].handshakes, 1);
      } finally {
        await connection.close();
      }
      children = await proxy.children();
      assert.ok(children.length > 0, "the proxy spawned its stdio server");
    } finally {
      await proxy.close();
    }
    assert.ok(await processGone(proxy.pid), "the proxy has exited");
    for (const pid of children) assert.ok(await processGone(pid), `its child ${pid} has exited`);
  });
}
