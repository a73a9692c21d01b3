/**
 * No double spend: processes approve pending calls by grants at the same time, on a libSQL file
 * and on a real PostgreSQL server. One grant raced for by 8 calls approves exactly `maxUses` of
 * them; 4 grants raced for by the same 2 calls approve each call once and spend exactly 2 uses.
 * Each grant's count and history agree with the approvals it approved.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { processGone } from "../../fixtures/process.ts";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { PostgresApprovalStore } from "../../postgres.ts";
import type { ApprovalStore } from "../../src/approvals/mod.ts";
import { makeRequest } from "../../fixtures/approval_requests.ts";
import { postgresAvailable, startPostgres } from "../../fixtures/postgres_server.ts";

const racer = new URL("../support/grant_racer.ts", import.meta.url).pathname;
const PROCESSES = 4;
const PER_PROCESS = 2;
const MAX_USES = 3;
const ROUNDS = 6;

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

/**
 * One round: `shared-grant` (one grant with MAX_USES uses, distinct calls in every process) or
 * `shared-calls` (every process holds its own one-use grant and races for the same two calls).
 */
interface Round {
  readonly kind: "shared-grant" | "shared-calls";
  readonly grantIds: string[];
  readonly ids: string[][];
}

async function race(where: string, open: () => Promise<ApprovalStore>, dir: string) {
  const store = await open();
  const rounds: Round[] = [];
  try {
    for (let k = 0; k < ROUNDS; k++) {
      const kind = k % 2 === 0 ? "shared-grant" : "shared-calls";
      const request = await makeRequest(Date.now(), {}, undefined, 10 * 60_000);
      const grant = (maxUses: number) =>
        store.createGrant({
          serverId: request.serverId,
          toolName: request.toolName,
          bindingId: request.bindingId,
          catalogDigest: request.catalogDigest,
          expiresAt: Date.now() + 10 * 60_000,
          maxUses,
          by: "gina",
        }).then((created) => created.id);
      const grantIds: string[] = [];
      const ids: string[][] = [];
      if (kind === "shared-grant") {
        const shared = await grant(MAX_USES);
        for (let p = 0; p < PROCESSES; p++) {
          grantIds.push(shared);
          ids.push([]);
          for (let i = 0; i < PER_PROCESS; i++) ids[p].push((await store.prepare(request)).id);
        }
      } else {
        const calls = [(await store.prepare(request)).id, (await store.prepare(request)).id];
        for (let p = 0; p < PROCESSES; p++) {
          grantIds.push(await grant(1));
          ids.push(p % 2 === 0 ? calls : [...calls].reverse());
        }
      }
      rounds.push({ kind, grantIds, ids });
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
      assert.ok(!outcomes.some((o) => o.startsWith("error")), `${outcomes}`);
      const approved = outcomes.filter((o) => o === "approved").length;
      assert.equal(approved, rounds[k].kind === "shared-grant" ? MAX_USES : 2, `${outcomes}`);
    }
  } finally {
    for (const writer of writers) await writer.close().catch(() => undefined);
    await Promise.all(children.map((child) => child.status));
  }
  const after = await open();
  try {
    for (const round of rounds) {
      const approvedBy = new Map<string, string>();
      for (const id of new Set(round.ids.flat())) {
        const record = (await after.get(id))!;
        if (record.state === "approved") approvedBy.set(id, record.grantId!);
        else assert.equal(record.state, "pending");
      }
      // Every use recorded on a grant is exactly one approval approved by that grant: no use is
      // spent twice, and none is spent on a call another grant approved.
      const uses: [string, string][] = [];
      for (const grantId of new Set(round.grantIds)) {
        const grant = (await after.getGrant(grantId))!;
        const used = (await after.grantEvents(grantId)).filter((e) => e.kind === "used");
        assert.equal(grant.uses, used.length);
        for (const event of used) uses.push([event.approvalId!, grantId]);
      }
      assert.deepEqual(uses.sort(), [...approvedBy].sort());
      assert.equal(approvedBy.size, round.kind === "shared-grant" ? MAX_USES : 2);
    }
  } finally {
    await after.close();
  }
}

Deno.test("grants race on libSQL: 4 processes: one grant's 3 uses for 8 calls, or 4 grants for 2 calls; never spent twice", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-grants-" });
  try {
    const path = join(dir, "approvals.db");
    await race(path, () => LibsqlApprovalStore.open(path), dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

if (postgresAvailable()) {
  Deno.test("grants race on PostgreSQL: 4 processes: one grant's 3 uses for 8 calls, or 4 grants for 2 calls; never spent twice", async () => {
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
