// connect() over stdio against a hostile server (fixtures/hostile_stdio.ts, one mode per
// test): each misbehaviour ends with its code within its deadline, the operator sees the exit
// status and a bounded, escaped stderr tail, the model sees neither, and no process is left
// behind (checked by process id in /proc).
import assert from "node:assert/strict";
import {
  connect,
  ConnectError,
  type ConnectOptions,
  parseLock,
  serializeLock,
  type StdioCommand,
  StdioError,
} from "../../mod.ts";
import { eventually } from "../support/drift.ts";
import { processAlive, processGone } from "../../fixtures/process.ts";
import { fixtureCommand, ROOT } from "../support/stdio_servers.ts";

const OPTIONS: ConnectOptions = {
  id: "hostile",
  allow: ["poke"],
  preApproved: ["poke"],
  transport: { timeoutMs: 10_000 },
};

function hostile(mode: string, extra: Partial<StdioCommand> = {}): StdioCommand {
  return fixtureCommand("hostile_stdio.ts", [mode], extra);
}

/** Connects to the hostile server in `mode`, runs `body`, closes, and checks the pid is gone. */
async function withHostile(
  mode: string,
  extra: Partial<StdioCommand>,
  body: (connection: Awaited<ReturnType<typeof connect>>, pid: number) => Promise<void>,
  options: Partial<ConnectOptions> = {},
): Promise<number> {
  const connection = await connect(hostile(mode, extra), { ...OPTIONS, ...options });
  const pid = connection.report().servers[0].stdio!.pid!;
  try {
    assert.ok(await processAlive(pid));
    await body(connection, pid);
  } finally {
    await connection.close();
  }
  assert.ok(await processGone(pid), `server ${pid} is gone`);
  return pid;
}

Deno.test("stdio: a frame over maxFrameBytes ends the server with stdio_frame_too_large", async () => {
  await withHostile("big-frame", {
    maxFrameBytes: 64 * 1024,
    env: { SLUICE_HOSTILE_BYTES: String(1024 * 1024) },
  }, async (connection, pid) => {
    const start = performance.now();
    const envelope = await connection.toolkit.call("hostile__poke", {});
    assert.equal(envelope.errorCode, "stdio_frame_too_large");
    assert.deepEqual(envelope.text, []);
    assert.ok(performance.now() - start < 10_000);
    assert.ok(await processGone(pid), "ended at once, before close()");
    // The session is over: the next call says so without starting anything.
    const next = await connection.toolkit.call("hostile__poke", {});
    assert.ok(["stdio_frame_too_large", "mcp_connection_closed"].includes(next.errorCode!));
  });
});

Deno.test("stdio: a response over transport.maxResponseBytes fails its call only", async () => {
  await withHostile("big-message", {
    env: { SLUICE_HOSTILE_BYTES: String(256 * 1024) },
  }, async (connection) => {
    const big = await connection.toolkit.call("hostile__poke", {});
    assert.equal(big.errorCode, "transport_response_too_large");
    const next = await connection.toolkit.call("hostile__poke", {});
    assert.equal(next.errorCode, undefined);
    assert.deepEqual(next.text, ["ok"]);
  }, { transport: { timeoutMs: 10_000, maxResponseBytes: 64 * 1024 } });
});

Deno.test("stdio: garbage on stdout ends the server with stdio_invalid_message", async () => {
  await withHostile("garbage", {}, async (connection, pid) => {
    const envelope = await connection.toolkit.call("hostile__poke", {});
    assert.equal(envelope.errorCode, "stdio_invalid_message");
    assert.ok(await processGone(pid));
  });
});

Deno.test("stdio: a flood on stderr is kept bounded and escaped, never in an envelope", async () => {
  await withHostile("stderr-flood", {
    maxStderrBytes: 4096,
    env: { SLUICE_HOSTILE_BYTES: String(2 * 1024 * 1024) },
  }, async (connection) => {
    const envelope = await connection.toolkit.call("hostile__poke", {});
    assert.deepEqual(envelope, { text: ["ok"], structured: null });
    const stdio = connection.report().servers[0].stdio!;
    assert.ok(stdio.stderrBytes >= 4 * 1024 * 1024, `counted ${stdio.stderrBytes}`);
    assert.ok(new TextEncoder().encode(stdio.stderr).length <= 4096 + 64);
    assert.match(stdio.stderr, /log line: the server is chatty/);
  });
});

Deno.test("stdio: a crashed server is reported with its exit status (stdio_server_exited)", async () => {
  await withHostile("crash", {}, async (connection, pid) => {
    const envelope = await connection.toolkit.call("hostile__poke", {});
    assert.equal(envelope.errorCode, "stdio_server_exited");
    assert.ok(await processGone(pid));
    assert.deepEqual(connection.report().servers[0].stdio!.exit, { code: 3, signal: null });
  });
});

Deno.test("stdio: a server that never exits is ended by SIGKILL within the close timeouts", async () => {
  let closedInMs = 0;
  const connection = await connect(hostile("never-exits", { closeTimeoutMs: 300 }), OPTIONS);
  const pid = connection.report().servers[0].stdio!.pid!;
  assert.deepEqual((await connection.toolkit.call("hostile__poke", {})).text, ["ok"]);
  const start = performance.now();
  await connection.close();
  closedInMs = performance.now() - start;
  assert.ok(await processGone(pid));
  // stdin closed (300 ms), SIGTERM ignored (300 ms), then SIGKILL.
  assert.ok(closedInMs >= 550 && closedInMs < 3_000, `closed in ${closedInMs} ms`);
  assert.equal(connection.report().servers[0].stdio!.exit?.signal, "SIGKILL");
});

Deno.test("stdio: a child the server forked is ended with it (process group)", async () => {
  let child = 0;
  await withHostile("forks", { inheritEnv: ["HOME", "DENO_DIR", "PATH"] }, async (connection) => {
    const envelope = await connection.toolkit.call("hostile__poke", {});
    child = Number(/^child (\d+)$/.exec(envelope.text[0])?.[1]);
    assert.ok(child > 0 && await processAlive(child), "the forked child runs");
  });
  assert.ok(await processGone(child), `forked child ${child} is gone`);
});

Deno.test("stdio: the environment is only what the entry names (nothing inherited)", async () => {
  Deno.env.set("SLUICE_TEST_SECRET", "not for the server");
  try {
    await withHostile("env", {
      inheritEnv: ["HOME", "NOT_SET_ANYWHERE"],
      env: { GIVEN: "1" },
    }, async (connection) => {
      const envelope = await connection.toolkit.call("hostile__poke", {});
      const env: Record<string, string> = JSON.parse(envelope.text[0]);
      // Deno itself (the server's runtime) adds its node shim: a PATH of only its own folder.
      assert.deepEqual(
        Object.keys(env).filter((name) => !["PATH", "DENO_NODE_SHIM_ACTIVE"].includes(name)).sort(),
        ["GIVEN", "HOME"],
      );
      assert.equal(env.GIVEN, "1");
      assert.ok(
        !(env.PATH ?? "").split(":").includes("/usr/bin"),
        "the host's PATH is not inherited",
      );
    });
  } finally {
    Deno.env.delete("SLUICE_TEST_SECRET");
  }
});

Deno.test("stdio: a server that exits at once fails the connect with its status and stderr", async () => {
  // A plain program as the "server" (the test's, not sluice's, use of a shell): it prints its
  // whole environment to stderr and exits 7.
  const error = await connect({
    command: "/bin/sh",
    args: ["-c", "env >&2; printf 'bell\\007' >&2; exit 7"],
    env: { ONLY: "this" },
  }, OPTIONS).then(() => undefined, (error: unknown) => error);
  assert.ok(error instanceof ConnectError);
  assert.equal(error.code, "stdio_server_exited");
  assert.match(error.message, /the stdio server exited with status 7/);
  let cause: unknown = error.cause;
  while (cause instanceof Error && !(cause instanceof StdioError)) cause = cause.cause;
  assert.ok(cause instanceof StdioError);
  assert.deepEqual(cause.exit, { code: 7, signal: null });
  const lines = cause.stderr.split("\n").filter((line) => /^[A-Z_]+=/.test(line));
  assert.deepEqual(lines.map((line) => line.split("=")[0]).sort(), ["ONLY", "PWD"].sort());
  assert.match(cause.stderr, /bell\\u\{7\}/, "control characters escaped");
});

Deno.test("stdio: a command that does not exist fails the connect with stdio_spawn_failed", async () => {
  const error = await connect({ command: "/nonexistent/sluice-no-such-server" }, OPTIONS).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.ok(error instanceof ConnectError);
  assert.equal(error.code, "stdio_spawn_failed");
  assert.match(error.message, /server "hostile" at stdio: stdio_spawn_failed/);
});

Deno.test("stdio: entries are checked (no token, no url, a command needs transport: stdio)", async () => {
  const refuse = async (servers: unknown, pattern: RegExp) => {
    const error = await connectAllRejects(servers);
    assert.equal(error.code, "connect_config_invalid");
    assert.match(error.message, pattern);
  };
  const command = { id: "s", transport: "stdio", command: "x" };
  await refuse([{ ...command, token: "t" }], /a stdio server takes no token/);
  await refuse([{ ...command, url: "https://example.com/mcp" }], /takes no url/);
  await refuse([{ id: "s", command: "x" }], /a command needs transport: "stdio"/);
  await refuse([{ ...command, args: ["a\0b"] }], /args may not hold NUL/);
  await refuse([{ ...command, env: { "A=B": "1" } }], /env needs names/);
  await refuse([{ ...command, maxFrameBytes: 1 }], /maxFrameBytes must be an integer/);
});

async function connectAllRejects(servers: unknown): Promise<{ code: string; message: string }> {
  const { connectAll } = await import("../../mod.ts");
  return await connectAll({ servers: servers as never, allow: ["s.t"] }).then(
    () => assert.fail("accepted"),
    (error: { code: string; message: string }) => error,
  );
}

Deno.test("stdio: list_changed on stdout stages a revision (drift); a lock pins the tools", async () => {
  const connection = await connect(hostile("list-changed"), {
    ...OPTIONS,
    changeDetection: true,
    minRelistIntervalMs: 100,
  });
  const pid = connection.report().servers[0].stdio!.pid!;
  let lockText: string;
  try {
    assert.equal(connection.report().servers[0].changeDetection, "notifications");
    lockText = serializeLock(await connection.lock());
    assert.deepEqual((await connection.toolkit.call("hostile__poke", {})).text, ["ok"]);
    await eventually(() => connection.revisions().length === 1, "the revision is staged");
    const [revision] = connection.revisions();
    assert.deepEqual(
      revision.diff.changed.map((change) => [change.tool, change.fields]),
      [["poke", ["description"]]],
    );
    assert.equal(
      (await connection.toolkit.call("hostile__poke", {})).errorCode,
      "mcp_catalog_stale",
    );
    await connection.accept(revision);
    assert.deepEqual((await connection.toolkit.call("hostile__poke", {})).text, ["ok"]);
  } finally {
    await connection.close();
  }
  assert.ok(await processGone(pid));
  // The lock of the first listing matches a fresh server (it describes poke as before).
  const locked = await connect(hostile("list-changed"), {
    ...OPTIONS,
    lock: await parseLock(lockText),
  });
  try {
    assert.deepEqual(locked.report().servers[0].lock?.matched, ["poke"]);
  } finally {
    await locked.close();
  }
});

Deno.test("stdio: the poisoning screen reads a stdio server's tools as any other's", async () => {
  const description = "Pokes.\u{E0049}\u{E0047}\u{E004E}"; // Tag characters: hidden text
  const connection = await connect(
    hostile("well", { env: { SLUICE_HOSTILE_DESCRIPTION: description } }),
    OPTIONS,
  );
  try {
    assert.deepEqual(
      connection.report().skipped.map((tool) => [tool.name, tool.code]),
      [["hostile__poke", "mcp_tool_screen_refused"]],
    );
    assert.equal((await connection.toolkit.call("hostile__poke", {})).errorCode, "unknown_tool");
  } finally {
    await connection.close();
  }
});

Deno.test("stdio: a host that exits without close() takes its stdio servers with it", async () => {
  const host = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}tests/support/stdio_host.ts`, "exit"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(host.code, 0, new TextDecoder().decode(host.stderr));
  const pid = Number(/SERVER_PID (\d+)/.exec(new TextDecoder().decode(host.stdout))?.[1]);
  assert.ok(pid > 0);
  assert.ok(await processGone(pid), `server ${pid} outlived its host`);
});

Deno.test("stdio: a server that never answers the handshake fails the connect at its deadline", async () => {
  const start = performance.now();
  const error = await connect(hostile("silent", { closeTimeoutMs: 200 }), {
    ...OPTIONS,
    transport: { timeoutMs: 500 },
  }).then(() => undefined, (error: unknown) => error);
  const elapsedMs = performance.now() - start;
  assert.ok(error instanceof ConnectError);
  assert.equal(error.code, "mcp_timeout");
  // The deadline, then the close (stdin closed: the server exits at once).
  assert.ok(elapsedMs >= 450 && elapsedMs < 5_000, `${elapsedMs} ms`);
  assert.doesNotMatch(error.message, /null/, "names the server as stdio, not a URL origin");
});

Deno.test("stdio: a call the server never answers ends mcp_timeout; the session goes on", async () => {
  await withHostile("hang", {}, async (connection, pid) => {
    const start = performance.now();
    const envelope = await connection.toolkit.call("hostile__poke", {});
    assert.equal(envelope.errorCode, "mcp_timeout");
    assert.ok(performance.now() - start < 2_000);
    assert.ok(await processAlive(pid), "a late call does not end the server");
  }, { limits: { timeoutMs: 300 } });
});

Deno.test("stdio: reconnect(id) starts a server that exited anew; its tools answer again", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-stdio-reconnect-" });
  const connection = await connect(
    hostile("crash", { env: { SLUICE_HOSTILE_MARKER: `${dir}/crashed` } }),
    OPTIONS,
  );
  const first = connection.report().servers[0].stdio!.pid!;
  try {
    assert.equal(
      (await connection.toolkit.call("hostile__poke", {})).errorCode,
      "stdio_server_exited",
    );
    assert.ok(await processGone(first));
    const report = await connection.reconnect("hostile");
    assert.equal(report.status, "ready");
    const second = report.stdio!.pid!;
    assert.notEqual(second, first);
    assert.deepEqual((await connection.toolkit.call("hostile__poke", {})).text, ["ok"]);
    // A live server is not restarted.
    assert.equal((await connection.reconnect("hostile")).stdio!.pid, second);
    await connection.close();
    assert.ok(await processGone(second));
  } finally {
    await connection.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("stdio: a Deno host without --allow-run is refused with stdio_spawn_failed", async () => {
  const host = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-env", `${ROOT}tests/support/stdio_host.ts`, "spawn"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(host.stdout);
  assert.equal(host.code, 0, new TextDecoder().decode(host.stderr));
  assert.match(out, /CODE stdio_spawn_failed/);
});
