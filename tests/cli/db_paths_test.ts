/**
 * `--db` values that are not a database file or carry a secret, through real `sluice`
 * processes: a FIFO (opening one for reading waits for a writer forever), a directory, a
 * symbolic-link loop, and a URL whose fragment holds a token. Each is refused at once with a
 * `cli_db_*` code on one line, never a hang, a stack trace or the token echoed. A process still
 * running after the limit is killed by its PID and fails the test.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runSluice } from "../support/run_script.ts";

/** Asserts one `refused: <code>: ...` line on stderr, exit 1, nothing else. */
function assertRefused(
  run: { code: number; stdout: string; stderr: string },
  code: string,
  what: string,
): void {
  assert.equal(run.code, 1, `${what}: ${run.stderr}`);
  assert.match(run.stderr, new RegExp(`^refused: ${code}: [^\\n]+\\n$`), what);
  assert.ok(!/Uncaught|\n\s+at /.test(run.stderr), `${what}: no stack trace`);
}

async function withDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "sluice-cli-db-" });
  try {
    await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function mkfifo(path: string): Promise<void> {
  const made = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert.equal(made.code, 0, "mkfifo");
}

const TOKEN_KEY = btoa(String.fromCharCode(...new Uint8Array(32).fill(7)));

Deno.test("sluice --db naming a FIFO, a directory or a link loop is refused at once, for every command that opens it", async () => {
  await withDir(async (dir) => {
    const fifo = join(dir, "approvals.fifo");
    await mkfifo(fifo);
    const folder = join(dir, "approvals.d");
    await Deno.mkdir(folder);
    const loop = join(dir, "loop.db");
    await Deno.symlink(join(dir, "loop2.db"), loop);
    await Deno.symlink(loop, join(dir, "loop2.db"));
    const inbox = ["inbox", "--port", "0", "--as", "alice"];
    for (
      const [args, code, shown] of [
        [["approvals", "list", "--db", fifo], "cli_db_not_a_file", /named pipe/],
        [["approvals", "list", "--db", fifo, "--create"], "cli_db_not_a_file", /named pipe/],
        [["grants", "list", "--db", fifo], "cli_db_not_a_file", /named pipe/],
        [[...inbox, "--db", fifo], "cli_db_not_a_file", /named pipe/],
        [["approvals", "list", "--db", folder], "cli_db_not_a_file", /directory/],
        [["grants", "list", "--db", `file:${folder}`], "cli_db_not_a_file", /directory/],
        [[...inbox, "--db", folder], "cli_db_not_a_file", /directory/],
        [["approvals", "list", "--db", loop], "cli_db_unreadable", /ELOOP/],
      ] as const
    ) {
      const run = await runSluice(args);
      assertRefused(run, code, args.join(" "));
      assert.match(run.stderr, shown);
    }
    // `sluice login` keeps its tokens in a --db file too.
    for (const db of [fifo, folder]) {
      const run = await runSluice(["login", "https://mcp.example.com/mcp", "--db", db], {
        env: { SLUICE_TOKEN_KEY: TOKEN_KEY },
      });
      assertRefused(run, "cli_db_not_a_file", `login --db ${db}`);
    }
    assert.equal((await Deno.stat(fifo)).isFifo, true, "the FIFO is left as it was");
    assert.deepEqual([...Deno.readDirSync(folder)], [], "nothing was created in the directory");
  });
});

Deno.test("sluice refuses a token in the fragment of a --db URL, before connecting, without echoing it", async () => {
  const seen: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    seen.push(request.url);
    return new Response("no", { status: 500 });
  });
  try {
    const local = `http://127.0.0.1:${server.addr.port}`;
    for (
      const args of [
        ["approvals", "list", "--db", "libsql://db.example.com#authToken=secret-1"],
        ["approvals", "list", "--db", "libsql:db.example.com#secret-1"],
        ["approvals", "list", "--db", "https://db.example.com/#token=secret-1"],
        ["approvals", "list", "--db", `${local}/#secret-1`],
        ["approvals", "list", "--db", "postgres://db.example.com/approvals#secret-1"],
        ["grants", "list", "--db", "postgresql://ops@db.example.com/approvals#password=secret-1"],
        ["inbox", "--port", "0", "--as", "alice", "--db", `${local}#authToken=secret-1`],
      ]
    ) {
      const run = await runSluice(args);
      assertRefused(run, "cli_db_token_in_url", args.join(" "));
      assert.match(run.stderr, /fragment/);
      assert.ok(!`${run.stdout}${run.stderr}`.includes("secret-1"), "the token is not echoed");
    }
    assert.deepEqual(seen, [], "nothing reached the server");
  } finally {
    await server.shutdown();
  }
});
