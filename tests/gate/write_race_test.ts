/**
 * Race: 8 host processes (`tests/support/write_host.ts --serve`), each with its own connection
 * to ONE approval database (a libSQL file; a PostgreSQL database on a real server) and its own
 * MCP session to one independent write server over HTTP, are told to resume the same approved
 * call at the same moment, or (hosts with an inline approver) to run the same new call of the
 * same run at the same moment, so each asks its approver and records the approval with its
 * claim. Exactly one dispatches: its envelope is committed and the server's ledger shows one
 * `received` for the key. 20 repetitions, reusing the 8 processes (spawning is the slow part).
 */
import assert from "node:assert/strict";
import { openStore } from "../support/open_store.ts";
import { postgresAvailable, startPostgres } from "../../fixtures/postgres_server.ts";
import {
  createWriteWorkspace,
  processGone,
  startWriteServerHttp,
} from "../../fixtures/write_server_launch.ts";
import { readLedger, receivedCounts } from "../../fixtures/write_ledger.ts";
import { envelopeOf, type HostProcess, startHost } from "../support/write_e2e.ts";

const HOSTS = 8;
const REPETITIONS = 20;

async function race(
  label: string,
  db: string,
  ws: Awaited<ReturnType<typeof createWriteWorkspace>>,
  mode: "resume" | "inline" = "resume",
) {
  // Create and migrate the database once, before the hosts open it.
  const store = await openStore(db);
  const server = await startWriteServerHttp(ws, "success", { exitWithStdin: true });
  const hosts: HostProcess[] = [];
  const winnerHosts: number[] = [];
  let inFlightLosers = 0;
  try {
    for (let i = 0; i < HOSTS; i++) {
      hosts.push(
        startHost([
          "--db",
          db,
          "--url",
          server.url,
          "--serve",
          ...(mode === "inline" ? ["--inline"] : []),
        ]),
      );
    }
    await Promise.all(hosts.map((host) => host.next("ready", 60_000)));
    for (let rep = 0; rep < REPETITIONS; rep++) {
      const key = `race-${mode}-${rep}`;
      const run = `run race-${mode} call-${rep} ${key}`;
      if (mode === "inline") {
        await Promise.all(hosts.map((host) => host.send(run)));
      } else {
        await hosts[0].send(run);
        const pending = envelopeOf(await hosts[0].next("envelope"));
        assert.equal(pending.errorCode, "approval_pending");
        await store.approve(pending.approvalId!, { by: "tester" });
        await Promise.all(hosts.map((host) => host.send(`resume ${pending.approvalId}`)));
      }
      const envelopes = await Promise.all(
        hosts.map(async (host) => envelopeOf(await host.next("envelope"))),
      );
      const winners = envelopes.filter((e) => e.errorCode === undefined);
      winnerHosts.push(envelopes.findIndex((e) => e.errorCode === undefined));
      // A loser that met the claim while the winner's call was still in flight sees `unknown`.
      inFlightLosers += envelopes.filter((e) => e.effect === "unknown").length;
      assert.equal(winners.length, 1, `repetition ${rep}: exactly one dispatches`);
      assert.equal(winners[0].effect, "committed");
      const losers = envelopes.filter((e) => e.errorCode !== undefined);
      assert.ok(losers.every((e) => e.errorCode === "approval_already_claimed"));
      assert.ok(envelopes.every((e) => e.approvalId === winners[0].approvalId), "one approval");
      assert.equal((await store.get(winners[0].approvalId!))?.state, "committed");
    }
    // Informational: which process won each round, and how often losers overlapped the call.
    console.log(
      `${label}: winners by host: ${winnerHosts.join(",")}; in-flight losers: ${inFlightLosers}`,
    );
    const counts = receivedCounts(await readLedger(ws.ledger));
    const ours = [...counts.keys()].filter((key) => key.startsWith(`race-${mode}-`));
    assert.equal(ours.length, REPETITIONS);
    for (let rep = 0; rep < REPETITIONS; rep++) {
      assert.equal(counts.get(`race-${mode}-${rep}`), 1, `repetition ${rep}: one received`);
    }
  } finally {
    for (const host of hosts) await host.finish();
    await server.stop();
    await store.close();
    assert.ok(await processGone(server.pid));
  }
}

Deno.test("write race: 8 processes resume one approved call, exactly one dispatches, 20 times", async () => {
  const ws = await createWriteWorkspace();
  try {
    await race("libsql file", `${ws.root}/approvals.db`, ws);
  } finally {
    await ws.remove();
  }
});

Deno.test("write race: 8 processes approve one new call inline at once, exactly one dispatches, 20 times", async () => {
  const ws = await createWriteWorkspace();
  try {
    await race("libsql file, inline", `${ws.root}/approvals.db`, ws, "inline");
  } finally {
    await ws.remove();
  }
});

if (postgresAvailable()) {
  Deno.test("write race on PostgreSQL: 8 processes, one database, exactly one dispatches, 20 times (resume, then inline)", async () => {
    const server = await startPostgres();
    try {
      for (const mode of ["resume", "inline"] as const) {
        const ws = await createWriteWorkspace();
        try {
          await race(`postgres, ${mode}`, await server.createDatabase(), ws, mode);
        } finally {
          await ws.remove();
        }
      }
    } finally {
      await server.stop();
    }
  });
}
