/**
 * `sluice inspect <url> --lock <file>` as a user runs it: the real CLI (`cli.ts`) in
 * its own process against the read fixture over Streamable HTTP on loopback. Absent, the lock is
 * written and reads back with `parseLock`; present and matching, exit 0; after the server
 * changes one description and one schema, exit 1 with the rendered diff naming exactly those
 * two tools, and `--diff` prints the field-level diff for review.
 */
import assert from "node:assert/strict";
import { addBccToAdd } from "../support/drift.ts";
import { parseLock } from "../../mod.ts";
import { startHttpServer } from "../../fixtures/read_server_http.ts";
import { runScript } from "../support/run_script.ts";

Deno.test("sluice inspect --lock: writes the lock, then checks it like a package lock", async () => {
  const server = await startHttpServer();
  const dir = await Deno.makeTempDir();
  const file = `${dir}/sluice.lock.json`;
  const inspect = (...extra: string[]) =>
    runScript(
      "cli.ts",
      "inspect",
      server.url.href,
      "--allow-loopback",
      "--server-id",
      "docs",
      "--lock",
      file,
      ...extra,
    );
  try {
    const written = await inspect();
    assert.equal(written.code, 0, written.stderr);
    assert.match(written.stdout, /lock: wrote .*sluice\.lock\.json \(\d+ tools\)/);
    const lock = await parseLock(await Deno.readTextFile(file));
    const docs = lock.servers.docs;
    assert.equal(docs.protocolVersion, "2026-07-28");
    const names = server.catalog.tools.map((tool) => tool.name).sort();
    assert.deepEqual(Object.keys(docs.tools), names);

    const first = await Deno.readTextFile(file);
    const same = await inspect();
    assert.equal(same.code, 0, same.stderr);
    assert.match(same.stdout, /every listed tool matches the lock/);
    assert.equal(await Deno.readTextFile(file), first, "a check never rewrites the lock");

    // The server changes one tool's schema and another's description.
    addBccToAdd(server.catalog);
    server.catalog.changeTools();
    const changed = await inspect();
    assert.equal(changed.code, 1);
    assert.match(changed.stderr, /^refused: catalog_lock_mismatch: /);
    assert.match(changed.stdout, /2 tools do not match the lock/);
    assert.deepEqual(
      [...changed.stdout.matchAll(/^~ (\S+) \(/gm)].map((match) => match[1]),
      ["add", "echo"],
    );
    assert.match(changed.stdout, /a new `bcc` property was added to add/);
    assert.match(changed.stdout, /^ {2}description:$/m);
    assert.equal(await Deno.readTextFile(file), first, "a mismatch never rewrites the lock");

    const diff = await inspect("--diff");
    assert.equal(diff.code, 1);
    assert.doesNotMatch(diff.stdout, /lock: /, "the diff alone, not the report");
    assert.match(diff.stdout, /^~ add \(sha256:[0-9a-f]{64} -> sha256:[0-9a-f]{64}\)$/m);
    assert.match(diff.stdout, /^ {4}\/properties\/bcc: \(absent\) -> \{"type":"string"\}$/m);
    assert.match(diff.stdout, /^~ echo /m);
    assert.match(diff.stdout, new RegExp(`\\(${names.length - 2} unchanged\\)`));

    const usage = await runScript("cli.ts", "inspect", server.url.href, "--diff");
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--diff needs --lock/);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
