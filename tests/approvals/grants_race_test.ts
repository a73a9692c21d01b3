/**
 * No double spend: processes approve pending calls with one grant at the same time, on a libSQL
 * file and on a real PostgreSQL server; of every round exactly `maxUses` approvals are approved,
 * the rest refused `approval_grant_exhausted`, and the grant's count and history agree.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { processGone } from "../../fixtures/process.ts";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { PostgresApprovalStore } from "../../postgres.ts";
import type { ApprovalStore } from "../../src/approvals/mod.ts";
import { makeRequest } from "../support/approval_requests.ts";
import { postgresAvailable, startPostgres } from "../support/postgres_server.ts";

const racer = new URL("../support/grant_racer.ts", import.meta.url).pathname;
const PROCESSES = 4;
const PER_PROCESS = 2;
const MAX_USES = 3;
const ROUNDS = 5;

/** Reads lines from a child's stdout. */
async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffered = "";
  for await (const text of stream.pipeThrough(new TextDecoderStream())) {
    buffered += text;
    let newline: number;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      yield buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
    }
  }
}

async function race(where: string, open: () => Promise<ApprovalStore>, dir: string) {
  const store = await open();
  const rounds: { grantId: string; ids: string[][] }[] = [];
  try {
    for (let k = 0; k < ROUNDS; k++) {
      const request = await makeRequest(Date.now(), {}, undefined, 10 * 60_000);
      const grant = await store.createGrant({
        serverId: request.serverId,
        toolName: request.toolName,
        bindingId: request.bindingId,
        catalogDigest: request.catalogDigest,
        expiresAt: Date.now() + 10 * 60_000,
        maxUses: MAX_USES,
        by: "gina",
      });
      const ids: string[][] = [];
      for (let p = 0; p < PROCESSES; p++) {
        ids.push([]);
        for (let i = 0; i < PER_PROCESS; i++) ids[p].push((await store.prepare(request)).id);
      }
      rounds.push({ grantId: grant.id, ids });
    }
  } finally {
    await store.close();
  }
  const planPath = join(dir, "grant-plan.json");
  await Deno.writeTextFile(planPath, JSON.stringify({ rounds }));
  const children = Array.from({ length: PROCESSES }, (_, p) =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", racer, where, planPath, String(p)],
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn());
  const readers = children.map((child) => lines(child.stdout));
  const writers = children.map((child) => child.stdin.getWriter());
  const next = async (reader: AsyncGenerator<string>) => {
    const { value, done } = await reader.next();
    if (done) throw new Error("a racer ended early");
    return value;
  };
  try {
    for (const reader of readers) assert.equal(await next(reader), "ready");
    const encoder = new TextEncoder();
    for (let k = 0; k < ROUNDS; k++) {
      await Promise.all(writers.map((writer) => writer.write(encoder.encode(`${k}\n`))));
      const outcomes = (await Promise.all(readers.map(next))).flatMap((line) => {
        const space = line.indexOf(" ");
        assert.equal(Number(line.slice(0, space)), k, line);
        return JSON.parse(line.slice(space + 1)) as string[];
      });
      assert.equal(outcomes.filter((o) => o === "approved").length, MAX_USES, `${outcomes}`);
      assert.equal(
        outcomes.filter((o) => o === "approval_grant_exhausted").length,
        PROCESSES * PER_PROCESS - MAX_USES,
        `${outcomes}`,
      );
    }
  } finally {
    for (const writer of writers) await writer.close().catch(() => undefined);
    await Promise.all(children.map((child) => child.status));
  }
  const after = await open();
  try {
    for (const round of rounds) {
      const grant = (await after.getGrant(round.grantId))!;
      assert.equal(grant.uses, MAX_USES);
      const used = (await after.grantEvents(round.grantId)).filter((e) => e.kind === "used");
      assert.equal(used.length, MAX_USES);
      const approved: string[] = [];
      for (const id of round.ids.flat()) {
        const record = (await after.get(id))!;
        if (record.state === "approved") {
          assert.equal(record.grantId, round.grantId);
          approved.push(id);
        } else {
          assert.equal(record.state, "pending");
        }
      }
      assert.deepEqual(used.map((e) => e.approvalId).sort(), approved.sort());
    }
  } finally {
    await after.close();
  }
}

Deno.test("grants race on libSQL: 4 processes, 8 calls, 3 uses, 5 rounds: exactly 3 approved each", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-grants-" });
  try {
    const path = join(dir, "approvals.db");
    await race(path, () => LibsqlApprovalStore.open(path), dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

if (postgresAvailable()) {
  Deno.test("grants race on PostgreSQL: 4 processes, 8 calls, 3 uses, 5 rounds: exactly 3 approved each", async () => {
    const server = await startPostgres();
    const dir = await Deno.makeTempDir({ prefix: "sluice-grants-" });
    try {
      const url = await server.createDatabase();
      await race(url, () => PostgresApprovalStore.open(url), dir);
    } finally {
      await Deno.remove(dir, { recursive: true });
      const pid = server.pid;
      await server.stop();
      assert.ok(await processGone(pid));
    }
  });
}
