/**
 * Writes through the gate against real servers nobody here wrote: `server-filesystem` and
 * `server-memory` (pinned in `deno.json`, run over stdio by the host process). The host
 * (`tests/support/write_host.ts --stdio`) discovers the write tool with `discoverWriteTools`,
 * runs the `Gate` with a `LibsqlApprovalStore` on a temp file and defers the approval; a person
 * approves FROM ANOTHER PROCESS with the CLI (`sluice approvals approve <id> --by alice`); the
 * host resumes. The real file changes exactly once, and a second host process resuming the same
 * approval dispatches nothing: the file's bytes and modification time stay as they were.
 */
import assert from "node:assert/strict";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { processGone } from "../../fixtures/process.ts";
import { approvedFromCli, hostEnvelope } from "../support/write_e2e.ts";

const FIXTURES = new URL("../../fixtures/", import.meta.url).pathname;

interface RealWrite {
  /** The server's argv after `deno run -A`. */
  readonly server: (root: string) => string[];
  /** Extra environment of the server. */
  readonly env: (root: string) => Record<string, string>;
  /** The real file the tool changes. */
  readonly file: (root: string) => string;
  /** Prepares the workspace; returns the file's content before (null: absent). */
  readonly prepare: (root: string) => Promise<string | null>;
  readonly tool: string;
  readonly arguments: (root: string) => Record<string, unknown>;
  /** The file's content after exactly one call. */
  readonly once: (root: string) => string;
}

const REAL_WRITES: Record<string, RealWrite> = {
  // edit_file is not idempotent: a second dispatch would replace "draft" again and leave
  // "draft, approved, approved".
  "server-filesystem edit_file": {
    server: (root) => [`${FIXTURES}server_filesystem.ts`, `${root}/files`],
    env: () => ({}),
    file: (root) => `${root}/files/notes.txt`,
    prepare: async (root) => {
      await Deno.mkdir(`${root}/files`);
      await Deno.writeTextFile(`${root}/files/notes.txt`, "status: draft\n");
      return "status: draft\n";
    },
    tool: "edit_file",
    arguments: (root) => ({
      path: `${root}/files/notes.txt`,
      edits: [{ oldText: "draft", newText: "draft, approved" }],
    }),
    once: () => "status: draft, approved\n",
  },
  // server-memory rewrites its whole file on every create_entities: a second dispatch would
  // change its modification time even where the content dedups.
  "server-memory create_entities": {
    server: () => [`${FIXTURES}server_memory.ts`],
    env: (root) => ({ MEMORY_FILE_PATH: `${root}/memory.jsonl` }),
    file: (root) => `${root}/memory.jsonl`,
    prepare: () => Promise.resolve(null),
    tool: "create_entities",
    arguments: () => ({
      entities: [{ name: "sluice", entityType: "project", observations: ["approved once"] }],
    }),
    once: () =>
      JSON.stringify({
        type: "entity",
        name: "sluice",
        entityType: "project",
        observations: ["approved once"],
      }),
  },
};

async function readOrNull(path: string): Promise<string | null> {
  return await Deno.readTextFile(path).catch(() => null);
}

async function realWrite(write: RealWrite): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "sluice-real-write-" }));
  const db = `${root}/approvals.db`;
  const file = write.file(root);
  const server = [
    "--db",
    db,
    "--stdio",
    JSON.stringify(write.server(root)),
    "--stdio-env",
    JSON.stringify(write.env(root)),
    "--tool",
    write.tool,
  ];
  try {
    const before = await write.prepare(root);
    const { serverPid, approvalId, final } = await approvedFromCli(
      [
        ...server,
        "--arguments",
        JSON.stringify(write.arguments(root)),
        "--run-id",
        "run-1",
        "--call-id",
        "call-1",
      ],
      db,
      "alice",
      async () => {
        assert.equal(await readOrNull(file), before, "nothing written before the approval");
      },
    );
    assert.equal(final.errorCode, undefined);
    assert.equal(final.effect, "committed");
    assert.equal(final.approvalId, approvalId);
    assert.ok(await processGone(serverPid), "the real server process has exited");
    assert.equal((await readOrNull(file))?.trimEnd(), write.once(root).trimEnd());
    const written = await Deno.readFile(file);
    const stat = await Deno.stat(file);

    const store = await LibsqlApprovalStore.open(db);
    try {
      const record = (await store.get(approvalId))!;
      assert.equal(record.state, "committed");
      assert.equal(record.decision?.by, "alice");
      assert.equal(record.toolName, write.tool);
    } finally {
      await store.close();
    }

    // A second resume, by a fresh host process with a fresh server: nothing is dispatched.
    const again = await hostEnvelope([...server, "--resume", approvalId]);
    const againPid = again.serverPid;
    assert.equal(again.envelope.errorCode, "approval_already_claimed");
    assert.equal(again.envelope.effect, "committed");
    assert.equal(again.envelope.approvalId, approvalId);
    assert.ok(await processGone(againPid), "the second server process has exited");
    assert.deepEqual(await Deno.readFile(file), written, "the file's bytes are unchanged");
    const after = await Deno.stat(file);
    assert.equal(after.mtime?.getTime(), stat.mtime?.getTime(), "the file was not rewritten");
    assert.equal(after.ino, stat.ino);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

for (const [name, write] of Object.entries(REAL_WRITES)) {
  Deno.test(`${name}: approved from the CLI in another process, the file changes once`, () =>
    realWrite(write));
}
