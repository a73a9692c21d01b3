/**
 * `sluice approvals approve --args-file` and `sluice grants list | create | revoke`: in process
 * through the runners with captured output against a real libSQL file, and once through
 * `cli.ts` in another process.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { runApprovalsCli } from "../../src/cli/approvals.ts";
import { runGrantsCli } from "../../src/cli/grants.ts";
import { makeRequest } from "../../fixtures/approval_requests.ts";

type Runner = typeof runApprovalsCli;

async function run(runner: Runner, argv: string[]) {
  let out = "";
  let err = "";
  const code = await runner(argv, {
    stdout: (text) => (out += text),
    stderr: (text) => (err += text),
  }, { openStore: (url) => LibsqlApprovalStore.open(url) });
  return { code, out, err };
}

async function withStore(
  body: (path: string, dir: string, pending: string, other: string) => Promise<void>,
) {
  const dir = await Deno.makeTempDir({ prefix: "sluice-decisions-cli-" });
  try {
    const path = join(dir, "approvals.db");
    const store = await LibsqlApprovalStore.open(path);
    let ids: string[];
    try {
      const request = await makeRequest(Date.now(), { runId: "run-1", callId: "c-1" });
      const other = await makeRequest(Date.now(), { runId: "run-1", callId: "c-2" });
      ids = [(await store.prepare(request)).id, (await store.prepare(other)).id];
    } finally {
      await store.close();
    }
    await body(path, dir, ids[0], ids[1]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("cli approve --args-file: the original is superseded, the edit approved by that person", async () => {
  await withStore(async (path, dir, pending) => {
    const file = join(dir, "edited.json");
    await Deno.writeTextFile(file, JSON.stringify({ document: "doc-1", title: "Edited" }));
    const done = await run(runApprovalsCli, [
      "approve",
      pending,
      "--db",
      path,
      "--by",
      "erin",
      "--args-file",
      file,
      "--json",
    ]);
    assert.equal(done.code, 0, done.err);
    const [original, edit] = done.out.trim().split("\n").map((line) => JSON.parse(line).record);
    assert.equal(original.state, "superseded");
    assert.equal(edit.state, "approved");
    assert.equal(edit.supersedes, pending);
    assert.equal(original.supersededBy, edit.id);
    assert.deepEqual(edit.arguments, { document: "doc-1", title: "Edited" });
    assert.equal(edit.decision.by, "erin");
    const shown = await run(runApprovalsCli, ["show", pending, "--db", path]);
    assert.match(shown.out, new RegExp(`superseded by:\\s+${edit.id}`));
    // A file that is not a JSON object is a usage error; nothing is decided.
    await Deno.writeTextFile(file, "[1, 2]");
    const other = await run(runApprovalsCli, [
      "approve",
      edit.id,
      "--db",
      path,
      "--by",
      "erin",
      "--args-file",
      file,
    ]);
    assert.equal(other.code, 2);
    assert.match(other.err, /--args-file must hold a JSON object/);
    const again = await run(runApprovalsCli, ["approve", pending, "--db", path, "--by", "erin"]);
    assert.equal(again.code, 1);
    assert.match(again.err, /approval_invalid_transition/);
  });
});

Deno.test("cli grants: create from an approval, list, revoke; refusals with their codes", async () => {
  await withStore(async (path, dir, pending) => {
    const create = (...rest: string[]) =>
      run(runGrantsCli, ["create", "--db", path, "--from", pending, ...rest]);
    const schemaFile = join(dir, "schema.json");
    await Deno.writeTextFile(
      schemaFile,
      JSON.stringify({ type: "object", properties: { title: { maxLength: 40 } } }),
    );
    const created = await create(
      "--uses",
      "2",
      "--this-run",
      "--schema-file",
      schemaFile,
      "--by",
      "gina",
      "--json",
    );
    assert.equal(created.code, 0, created.err);
    const grant = JSON.parse(created.out);
    assert.equal(grant.runId, "run-1");
    assert.equal(grant.maxUses, 2);
    assert.equal(grant.grantedBy, "gina");
    const listed = await run(runGrantsCli, ["list", "--db", path]);
    assert.equal(listed.code, 0, listed.err);
    assert.match(
      listed.out,
      new RegExp(`^${grant.id}  active .*0/2 used  docs/update_doc  run run-1`),
    );
    const revoked = await run(runGrantsCli, ["revoke", grant.id, "--db", path, "--by", "rita"]);
    assert.equal(revoked.code, 0, revoked.err);
    assert.match(revoked.out, /revoked/);
    const twice = await run(runGrantsCli, ["revoke", grant.id, "--db", path, "--by", "rita"]);
    assert.equal(twice.code, 1);
    assert.match(twice.err, /approval_grant_revoked/);
    // Usage: no end, a bad count, a schema the profile refuses.
    const open = await create("--uses", "2", "--by", "gina");
    assert.equal(open.code, 2);
    assert.match(open.err, /--this-run, --until, or both/);
    const zero = await create("--uses", "0", "--this-run", "--by", "gina");
    assert.equal(zero.code, 2);
    await Deno.writeTextFile(schemaFile, JSON.stringify({ $ref: "https://example.com/x.json" }));
    const refused = await create(
      "--uses",
      "1",
      "--until",
      new Date(Date.now() + 60_000).toISOString(),
      "--schema-file",
      schemaFile,
      "--by",
      "gina",
    );
    assert.equal(refused.code, 1);
    assert.match(refused.err, /schema_unsupported/);
    assert.equal(
      JSON.parse((await run(runGrantsCli, ["list", "--db", path, "--json"])).out).length,
      1,
    );
  });
});

Deno.test("sluice grants list runs as its own process", async () => {
  await withStore(async (path) => {
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        new URL("../../cli.ts", import.meta.url).pathname,
        "grants",
        "list",
        "--db",
        path,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    assert.equal(new TextDecoder().decode(output.stdout), "no grants\n");
  });
});
