// `sluice serve --config` with a stdio server in the config file: the command starts it as its
// child, serves its tool, and ends it when the command stops (its pid checked gone).
import assert from "node:assert/strict";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { runServeCli } from "../../src/cli/serve.ts";
import { listenOnLoopback } from "../../src/cli/serve_node.ts";
import { openCliStore } from "../../src/cli/store.ts";
import { processGone } from "../../fixtures/process.ts";
import { fixtureCommand } from "../support/stdio_servers.ts";
import { connectClient, IDE_TOKEN, textOf } from "./setup.ts";

Deno.test("sluice serve: a stdio server in the config file is started, served and ended", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-serve-cli-stdio-" });
  const db = `${dir}/approvals.db`;
  await (await LibsqlApprovalStore.open(db)).close();
  const config = `${dir}/serve.json`;
  await Deno.writeTextFile(
    config,
    JSON.stringify({
      servers: [{
        id: "hostile",
        transport: "stdio",
        ...fixtureCommand("hostile_stdio.ts", ["well"]),
      }],
      allow: ["hostile.poke"],
      preApproved: ["hostile.poke"],
      serve: { clients: [{ name: "ide", tokenEnv: "IDE_TOKEN" }] },
    }),
  );
  const out: string[] = [];
  const err: string[] = [];
  const { promise: stop, resolve: stopNow } = Promise.withResolvers<void>();
  const run = runServeCli(
    ["--config", config, "--db", db, "--port", "0"],
    { stdout: (text) => out.push(text), stderr: (text) => err.push(text) },
    {
      openStore: (url, options) => openCliStore(url, options),
      env: (name) => name === "IDE_TOKEN" ? IDE_TOKEN : undefined,
      listen: (handler, address) =>
        listenOnLoopback(handler, address, {
          code: "cli_serve_listen_failed",
          stopOnSignals: false,
        }),
      stopped: () => stop,
    },
  );
  let pid: number | undefined;
  try {
    let url: URL | undefined;
    for (let i = 0; i < 400 && url === undefined; i++) {
      const match = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out.join(""));
      if (match) url = new URL(match[1]);
      else await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.ok(url, `the command printed its URL (stderr: ${err.join("")})`);
    const client = await connectClient(url, IDE_TOKEN);
    try {
      const poke = await client.callTool({ name: "hostile__poke", arguments: {} });
      assert.deepEqual(textOf(poke), ["ok"]);
    } finally {
      await client.close();
    }
    const me = Deno.pid;
    // The server is the command's child: find it by its parent and its arguments.
    for (const entry of Deno.readDirSync("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      try {
        const cmdline = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).split("\0");
        const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        if (ppid === me && cmdline.some((arg) => arg.endsWith("hostile_stdio.ts"))) {
          pid = Number(entry.name);
        }
      } catch {
        // Gone meanwhile: not ours.
      }
    }
    assert.ok(pid !== undefined, "the stdio server runs as the command's child");
    stopNow();
    assert.equal(await run, 0);
  } finally {
    stopNow();
    await run.catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
  assert.ok(await processGone(pid!), `server ${pid} is gone`);
});
