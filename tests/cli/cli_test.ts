/**
 * `sluice` as a command: the dispatcher (`--help`, `--version`, unknown commands), `--json`,
 * and every refusal that protects an operator: a `--db` typo, a foreign database, a token in
 * the URL, control and invisible characters in what is printed, a whitespace-only `--by`.
 * Each runs through `runCli` with captured output against real libSQL files.
 */
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { join } from "node:path";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { runCli } from "../../src/cli/main.ts";
import { VERSION } from "../../src/cli/version.ts";
import { makeRequest, testClock } from "../../fixtures/approval_requests.ts";
import { runScript } from "../support/run_script.ts";

interface Run {
  code: number;
  out: string;
  err: string;
}

async function cli(argv: string[], env: Record<string, string> = {}): Promise<Run> {
  let out = "";
  let err = "";
  const code = await runCli(argv, {
    stdout: (text) => (out += text),
    stderr: (text) => (err += text),
    env: (name) => env[name],
  });
  return { code, out, err };
}

async function withDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "sluice-cli-cmd-" });
  try {
    await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** A store with one pending approval whose arguments hold invisible and control characters. */
async function storeWithPending(path: string, title: string): Promise<string> {
  const clock = testClock(Date.now());
  const store = await LibsqlApprovalStore.open(path, { now: clock.now });
  try {
    return (await store.prepare(await makeRequest(clock.t, {}, { document: "d-1", title }))).id;
  } finally {
    await store.close();
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("sluice --help and --version exit 0; an unknown command names itself and exits 2", async () => {
  const help = await cli(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.out, /approvals/);
  assert.match(help.out, /inspect/);
  assert.match(help.out, /exit codes: 0 ok, 1 refused/);
  const version = await cli(["--version"]);
  assert.deepEqual([version.code, version.out], [0, `sluice ${VERSION}\n`]);
  const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  assert.equal(VERSION, config.version, "src/cli/version.ts follows deno.json");
  const unknown = await cli(["aprovals", "list"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /unknown command "aprovals"/);
  const hostile = await cli(["x\u001b[2J\u202e"]);
  assert.equal(hostile.code, 2);
  // deno-lint-ignore no-control-regex
  assert.ok(!/[\u001b\u202e]/.test(hostile.err), "the unknown name is escaped");
  assert.equal((await cli([])).code, 2);
  assert.equal((await cli(["approvals", "--help"])).code, 0);
  assert.equal((await cli(["inspect", "--help"])).code, 0);
});

Deno.test("sluice approvals --db <typo> is refused and creates nothing; --create creates the store", async () => {
  await withDir(async (dir) => {
    const typo = join(dir, "aprovals.db");
    const refused = await cli(["approvals", "list", "--db", typo]);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /refused: cli_db_missing: /);
    assert.equal(await exists(typo), false, "the typo did not create a file");
    const created = await cli(["approvals", "list", "--db", typo, "--create", "--json"]);
    assert.equal(created.code, 0, created.err);
    assert.deepEqual(JSON.parse(created.out), []);
    assert.equal((await cli(["approvals", "list", "--db", typo])).code, 0, "now it exists");
    // An empty file is not a store either.
    const empty = join(dir, "empty.db");
    await Deno.writeFile(empty, new Uint8Array());
    assert.match((await cli(["approvals", "list", "--db", empty])).err, /cli_db_missing/);
    assert.equal((await Deno.stat(empty)).size, 0);
  });
});

Deno.test("sluice approvals refuses another application's SQLite file and never migrates or switches it to WAL", async () => {
  await withDir(async (dir) => {
    const foreign = join(dir, "app.sqlite");
    const client = createClient({ url: `file:${foreign}` });
    await client.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)");
    await client.execute("INSERT INTO users (name) VALUES ('ada')");
    client.close();
    const before = await Deno.readFile(foreign);
    for (const argv of [["list"], ["show", "x"], ["approve", "x", "--by", "ops"]]) {
      const run = await cli(["approvals", ...argv, "--db", foreign, "--create"]);
      assert.equal(run.code, 1, argv.join(" "));
      assert.match(run.err, /refused: cli_db_not_a_store: /);
    }
    assert.deepEqual(await Deno.readFile(foreign), before, "not one byte changed");
    assert.equal(await exists(`${foreign}-wal`), false, "no WAL file");
    // Bytes 18 and 19 of the header are 2 in WAL mode, 1 in rollback-journal mode.
    assert.deepEqual([before[18], before[19]], [1, 1]);
    const text = join(dir, "notes.txt");
    await Deno.writeTextFile(text, "not a database at all\n");
    assert.match((await cli(["approvals", "list", "--db", text])).err, /cli_db_not_a_store/);
    assert.equal(await Deno.readTextFile(text), "not a database at all\n");
  });
});

Deno.test("sluice approvals refuses a token in the --db URL before connecting; --auth-token and SLUICE_DB_AUTH_TOKEN are sent", async () => {
  const seen: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    seen.push(request.headers.get("authorization") ?? "none");
    return new Response("no", { status: 500 });
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  try {
    for (
      const db of [
        `${base}/?authToken=secret-1`,
        `${base}?auth_token=secret-1`,
        `http://user:secret-1@127.0.0.1:${server.addr.port}`,
        "libsql://db.example.com?authToken=secret-1",
        "libsql:db.example.com?authToken=secret-1",
        "https://db.example.com/?jwt=secret-1",
      ]
    ) {
      const run = await cli(["approvals", "list", "--db", db]);
      assert.equal(run.code, 1, db);
      assert.match(run.err, /refused: cli_db_token_in_url: /, db);
      assert.ok(!run.err.includes("secret-1"), "the token is not echoed");
    }
    assert.deepEqual(seen, [], "nothing reached the server");
    // A token passed the supported ways reaches the server as a bearer token.
    const flag = await cli(["approvals", "list", "--db", base, "--auth-token", "tok-flag"]);
    assert.equal(flag.code, 1);
    assert.match(flag.err, /refused: approval_store_error: /);
    await cli(["approvals", "list", "--db", base], { SLUICE_DB_AUTH_TOKEN: "tok-env" });
    const sent: string[] = [...seen];
    assert.ok(sent.includes("Bearer tok-flag"), sent.join());
    assert.ok(sent.includes("Bearer tok-env"), sent.join());
  } finally {
    await server.shutdown();
  }
});

Deno.test("sluice approvals prints every field terminal-safe: control, separator, bidi and zero-width characters in arguments, by and note", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "approvals.db");
    const id = await storeWithPending(path, "plan\u2028fake: line\u200b\u2067x\u0007");
    const approve = await cli([
      "approvals",
      "approve",
      id,
      "--db",
      path,
      "--by",
      "alice\n  2026-01-01T00:00:00.000Z  pending -> denied by mallory",
      "--note",
      "ok\u2029\u202eevil\u0085\u{e0041}",
    ]);
    assert.equal(approve.code, 0, approve.err);
    const show = await cli(["approvals", "show", id, "--db", path]);
    // deno-lint-ignore no-control-regex
    const unsafe = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u200b\u202e\u2067]|\udb40/;
    for (const run of [approve, show]) {
      assert.ok(!unsafe.test(run.out), JSON.stringify(run.out));
      assert.ok(!/^\s+2026-01-01T00:00:00.000Z/m.test(run.out), "no fake history line");
      assert.match(run.out, /alice\\u000a/);
      assert.match(run.out, /ok\\u2029\\u202eevil\\u0085\\udb40\\udc41/);
      assert.match(run.out, /plan\\u2028fake: line\\u200b\\u2067x\\u0007/);
    }
    const list = await cli(["approvals", "list", "--db", path, "--json"]);
    assert.ok(!unsafe.test(list.out), "JSON output is escaped too");
    const records = JSON.parse(list.out);
    assert.equal(records[0].decision.note, "ok\u2029\u202eevil\u0085\u{e0041}", "and still exact");
    const shown = JSON.parse((await cli(["approvals", "show", id, "--db", path, "--json"])).out);
    assert.equal(shown.record.id, id);
    assert.ok(shown.events.length >= 2);
  });
});

Deno.test("sluice approvals refuses a whitespace-only --by", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "approvals.db");
    const id = await storeWithPending(path, "t");
    for (const by of [" ", "\t\n", "\u3000"]) {
      const run = await cli(["approvals", "approve", id, "--db", path, "--by", by]);
      assert.equal(run.code, 2, JSON.stringify(by));
      assert.match(run.err, /--by must name someone/);
    }
    const show = JSON.parse((await cli(["approvals", "show", id, "--db", path, "--json"])).out);
    assert.equal(show.record.state, "pending");
  });
});

Deno.test("cli.ts runs the same CLI as a process", async () => {
  const version = await runScript("cli.ts", "--version");
  assert.deepEqual([version.code, version.stdout], [0, `sluice ${VERSION}\n`]);
  const unknown = await runScript("cli.ts", "nope");
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown command "nope"/);
});
