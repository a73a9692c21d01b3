// Deno permissions, in real child processes: without --allow-net a server is reported as
// transport_permission_denied with the host in the message and the process exits by itself; and
// each permission set of docs/permissions.md (read from the page's marked command lines) works
// with exactly those flags. A child that does not exit within KILL_AFTER_MS is killed and the
// test fails: that bound is a hang detector, not a speed assertion.
import assert from "node:assert/strict";
import { startHttpServer } from "../../fixtures/read_server_http.ts";
import { REPO_ROOT } from "../support/sessions.ts";

const CHILD = new URL("../support/permissions_child.ts", import.meta.url).pathname;
const KILL_AFTER_MS = 120_000;

interface ChildRun {
  readonly killed: boolean;
  readonly code: number;
  readonly result: Record<string, unknown> | undefined;
  readonly stderr: string;
}

/** Runs the permission child with exactly `flags` (plus --no-prompt, which grants nothing). */
async function runChild(flags: readonly string[], args: readonly string[]): Promise<ChildRun> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", ...flags, CHILD, ...args],
    cwd: REPO_ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill("SIGKILL");
  }, KILL_AFTER_MS);
  const output = await child.output();
  clearTimeout(timer);
  const lines = new TextDecoder().decode(output.stdout).trim().split("\n");
  let result: Record<string, unknown> | undefined;
  try {
    result = JSON.parse(lines.at(-1) ?? "");
  } catch {
    result = undefined;
  }
  return { killed, code: output.code, result, stderr: new TextDecoder().decode(output.stderr) };
}

function assertExitedByItself(run: ChildRun, what: string): void {
  assert.ok(!run.killed, `${what}: still running after ${KILL_AFTER_MS} ms, killed`);
  assert.equal(run.code, 0, `${what}: exit ${run.code}\n${run.stderr}`);
  assert.ok(run.result !== undefined, `${what}: no result line\n${run.stderr}`);
}

/** The permission sets of docs/permissions.md: marker name → the flags of its command line. */
async function documentedSets(): Promise<Map<string, string[]>> {
  const page = await Deno.readTextFile(new URL("../../docs/permissions.md", import.meta.url));
  const sets = new Map<string, string[]>();
  for (const match of page.matchAll(/<!-- permission-set: (\S+) -->\s*```sh\n(.*)\n```/g)) {
    const words = match[2].trim().split(/\s+/);
    assert.deepEqual(words.slice(0, 2), ["deno", "run"], match[1]);
    assert.equal(words.at(-1), "main.ts", match[1]);
    sets.set(match[1], words.slice(2, -1));
  }
  return sets;
}

/** A documented set with its placeholders filled in. */
function fill(flags: readonly string[], values: Record<string, string>): string[] {
  return flags.map((flag) =>
    flag.replace(/<([a-z-]+)>(:53)?/g, (whole, name: string, dnsPort?: string) => {
      const value = values[name];
      assert.ok(value !== undefined, `no value for ${whole}`);
      // One entry per DNS server.
      return dnsPort ? value.split(",").map((server) => `${server}:53`).join(",") : value;
    })
  );
}

/** The DNS servers `Deno.resolveDns` asks, when they answer `localhost` with loopback here. */
async function dnsServersAnsweringLocalhost(): Promise<string | undefined> {
  try {
    const conf = await Deno.readTextFile("/etc/resolv.conf");
    const servers = [...conf.matchAll(/^nameserver\s+(\S+)/gm)].map((match) =>
      match[1].includes(":") ? `[${match[1]}]` : match[1]
    );
    const answers = await Deno.resolveDns("localhost", "A");
    return servers.length > 0 && answers.includes("127.0.0.1") ? servers.join(",") : undefined;
  } catch {
    return undefined;
  }
}

const SETS = await documentedSets();
const DNS_SERVERS = await dnsServersAnsweringLocalhost();

Deno.test("the permission page marks every set the tests run", () => {
  assert.deepEqual([...SETS.keys()].toSorted(), [
    "connect-ip",
    "connect-name",
    "connect-name-resolver",
    "store-libsql",
    "store-memory",
  ]);
});

Deno.test("without --allow-net: transport_permission_denied naming the host; the process exits", async () => {
  const server = await startHttpServer();
  try {
    const port = server.url.port;
    const cases = [
      { url: `http://127.0.0.1:${port}/mcp`, names: `127.0.0.1:${port}` },
      // A name: the resolver's own lookup is what Deno refuses first.
      { url: `http://localhost:${port}/mcp`, names: "localhost" },
    ];
    for (const { url, names } of cases) {
      const run = await runChild([], ["connect", url]);
      assertExitedByItself(run, url);
      assert.equal(run.result!.errorCode, "transport_permission_denied", url);
      assert.match(String(run.result!.reason), /--allow-net/);
      assert.ok(String(run.result!.message).includes(names), `${url}: ${run.result!.message}`);
      assert.match(String(run.result!.message), /--allow-net=/);
    }
    assert.equal(server.log.length, 0, "a refused request reached the server");
  } finally {
    await server.close();
  }
});

Deno.test("connect() works with exactly the documented --allow-net sets", async () => {
  const server = await startHttpServer();
  try {
    const port = server.url.port;
    const permitted = { text: ["permitted"], structured: null };
    const ip = await runChild(fill(SETS.get("connect-ip")!, { ip: "127.0.0.1", port }), [
      "connect",
      `http://127.0.0.1:${port}/mcp`,
    ]);
    assertExitedByItself(ip, "connect-ip");
    assert.deepEqual(ip.result, {
      errorCode: null,
      reason: null,
      message: null,
      envelope: permitted,
    });

    const local = `http://localhost:${port}/mcp`;
    const ownResolver = await runChild(
      fill(SETS.get("connect-name-resolver")!, { host: "localhost", address: "127.0.0.1", port }),
      ["connect", local, "localhost"],
    );
    assertExitedByItself(ownResolver, "connect-name-resolver");
    assert.deepEqual(ownResolver.result?.envelope, permitted);

    if (DNS_SERVERS === undefined) {
      console.log("connect-name not run: no DNS server here answers localhost with 127.0.0.1");
      return;
    }
    const name = await runChild(
      fill(SETS.get("connect-name")!, {
        host: "localhost",
        address: "127.0.0.1",
        port,
        "dns-server": DNS_SERVERS,
      }),
      ["connect", local],
    );
    assertExitedByItself(name, "connect-name");
    assert.deepEqual(name.result?.envelope, permitted);
  } finally {
    await server.close();
  }
});

Deno.test("each approval store works with exactly its documented set", async () => {
  const memory = await runChild(SETS.get("store-memory")!, ["memory"]);
  assertExitedByItself(memory, "store-memory");
  assert.deepEqual(memory.result, { claimed: true });

  const dir = await Deno.makeTempDir({ prefix: "sluice-permissions-" });
  try {
    // The sys entries are what detect-libc needs on Linux; elsewhere the page says so.
    const flags = Deno.build.os === "linux"
      ? SETS.get("store-libsql")!
      : ["--allow-env=LIBSQL_JS_DEV", "--allow-ffi", "--allow-sys"];
    const libsql = await runChild(flags, ["libsql", `${dir}/approvals.db`]);
    assertExitedByItself(libsql, "store-libsql");
    assert.deepEqual(libsql.result, { claimed: true });
    assert.ok((await Deno.stat(`${dir}/approvals.db`)).isFile);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
