/**
 * "Never twice" through the gate, under contention: 4 host processes (`write_host.ts --serve
 * --concurrent`), each with its own store connection to ONE approval database and its own MCP
 * session to one write server, run 3 new write calls each at once while one standing grant of 5
 * uses races to approve them; a person then approves or denies every call left pending, every
 * host resumes every decided approval at once, and every host runs every call of the round again
 * (a client retrying). 3 rounds, on a libSQL file and on PostgreSQL.
 *
 * The server's own ledger must show every key received at most once, and exactly once for every
 * call an envelope called committed; every committed envelope is recorded committed; every
 * approval an envelope names exists; the grant approved at most its uses, each recorded.
 */
import assert from "node:assert/strict";
import { createGrant, grantScopeOf } from "../../mod.ts";
import type { ApprovalStore } from "../../src/approvals/mod.ts";
import { openStore } from "../support/open_store.ts";
import { postgresAvailable, startPostgres } from "../../fixtures/postgres_server.ts";
import {
  createWriteWorkspace,
  processGone,
  startWriteServerHttp,
} from "../../fixtures/write_server_launch.ts";
import { readLedger, receivedCounts } from "../../fixtures/write_ledger.ts";
import {
  envelopeOf,
  type HostEnvelope,
  type HostProcess,
  startHost,
} from "../support/write_e2e.ts";

const HOSTS = 4;
const CALLS = 3;
const ROUNDS = 3;
const GRANT_USES = 5;

/** Sends every line of `lines[h]` to host h at once and collects one envelope per line. */
async function each(hosts: readonly HostProcess[], lines: readonly string[][]) {
  await Promise.all(hosts.map(async (host, h) => {
    for (const line of lines[h]) await host.send(line);
  }));
  const envelopes = await Promise.all(hosts.map(async (host, h) => {
    const mine: { line: string; envelope: HostEnvelope }[] = [];
    for (let i = 0; i < lines[h].length; i++) {
      const line = await host.next("envelope", 60_000);
      mine.push({ line: String(line.line), envelope: envelopeOf(line) });
    }
    return mine;
  }));
  return envelopes.flat();
}

async function race(label: string, db: string) {
  const ws = await createWriteWorkspace();
  const store: ApprovalStore = await openStore(db);
  const server = await startWriteServerHttp(ws, "success", { exitWithStdin: true });
  const hosts: HostProcess[] = [];
  try {
    for (let h = 0; h < HOSTS; h++) {
      hosts.push(startHost(["--db", db, "--url", server.url, "--serve", "--concurrent"]));
    }
    await Promise.all(hosts.map((host) => host.next("ready", 60_000)));
    // A first call tells the test the tool's catalog digest, which a grant names.
    const [probe] = await each(hosts, [["run probe call-0 probe"], [], [], []]);
    assert.equal(probe.envelope.errorCode, "approval_pending");
    const probeRecord = (await store.get(probe.envelope.approvalId!))!;
    await store.deny(probeRecord.id, { by: "tester" });

    const seen: { line: string; envelope: HostEnvelope }[] = [];
    const grants: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const grant = await createGrant(store, {
        ...grantScopeOf(probeRecord),
        maxUses: GRANT_USES,
        expiresAt: Date.now() + 10 * 60_000,
        by: "gina",
      });
      grants.push(grant.id);
      const runs = hosts.map((_, h) =>
        Array.from(
          { length: CALLS },
          (_, k) => `run r${round}-h${h} call-${k} key-${round}-${h}-${k}`,
        )
      );
      const first = await each(hosts, runs);
      seen.push(...first);
      const pending = first.filter((e) => e.envelope.errorCode === "approval_pending");
      const granted = first.filter((e) => e.envelope.effect === "committed");
      assert.equal(
        granted.length,
        Math.min(GRANT_USES, HOSTS * CALLS),
        `${label} round ${round}: the grant approved as many calls as it has uses`,
      );
      // A person decides every pending call: approves two in three, denies the rest.
      for (const [i, { envelope }] of pending.entries()) {
        if (i % 3 === 2) await store.deny(envelope.approvalId!, { by: "tester" });
        else await store.approve(envelope.approvalId!, { by: "tester" });
      }
      const ids = pending.map((e) => e.envelope.approvalId!);
      // Every host resumes every decided call at once, then every host runs every call again.
      seen.push(...await each(hosts, hosts.map(() => ids.map((id) => `resume ${id}`))));
      seen.push(...await each(hosts, hosts.map(() => runs.flat())));
    }

    const counts = receivedCounts(await readLedger(ws.ledger));
    const twice = [...counts].filter(([, n]) => n > 1).map(([key, n]) => `${key}: ${n}`);
    assert.deepEqual(twice, [], `${label}: keys the server received more than once`);
    for (const { line, envelope } of seen) {
      if (envelope.approvalId === undefined) continue;
      const record = await store.get(envelope.approvalId);
      assert.ok(record !== undefined, `${label}: "${line}" named approval ${envelope.approvalId}`);
      if (envelope.effect === "committed") {
        assert.equal(record.state, "committed", `${label}: "${line}" said committed`);
        const [command, , , key] = line.split(" ");
        if (command === "run") assert.equal(counts.get(key), 1, `${label}: ${key} sent once`);
      }
    }
    for (const id of grants) {
      const grant = (await store.getGrant(id))!;
      const approved = (await store.list()).filter((record) => record.grantId === id);
      assert.equal(grant.uses, approved.length, `${label}: grant ${id} uses match its approvals`);
      assert.ok(grant.uses <= GRANT_USES);
    }
    const committed = (await store.list({ state: "committed" })).length;
    const received = [...counts.values()].reduce((sum, n) => sum + n, 0);
    assert.equal(committed, received, `${label}: every dispatch is recorded committed`);
    console.log(`${label}: ${seen.length} envelopes, ${committed} committed, ${received} received`);
  } finally {
    for (const host of hosts) await host.finish();
    await server.stop();
    await store.close();
    assert.ok(await processGone(server.pid));
    await ws.remove();
  }
}

Deno.test("write contention: 4 hosts x 3 concurrent calls, a grant of 5 uses, resumes and retries, 3 rounds, libSQL file: nothing sent twice, every commit recorded", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-write-contention-" });
  try {
    await race("libsql file", `${dir}/approvals.db`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

if (postgresAvailable()) {
  Deno.test("write contention on PostgreSQL: 4 hosts x 3 concurrent calls, grants, resumes and retries: nothing sent twice, every commit recorded", async () => {
    const server = await startPostgres();
    try {
      await race("postgres", await server.createDatabase());
    } finally {
      await server.stop();
    }
  });
}
