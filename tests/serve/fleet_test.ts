// A fleet: two `sluice serve` processes on one PostgreSQL store, behind no balancer but each
// reached by its own client, in front of one real write server. The same write sent to both
// meets one approval; approved once, it is dispatched once whichever instance the retries hit
// (both at once), and the upstream's ledger shows one call.
import assert from "node:assert/strict";
import { postgresAvailable, startPostgres } from "../../fixtures/postgres_server.ts";
import { createWriteWorkspace, startWriteServerHttp } from "../../fixtures/write_server_launch.ts";
import { SYNTHETIC_VALUE as VALUE } from "../../fixtures/write_server.ts";
import { readLedger, receivedFor } from "../../fixtures/write_ledger.ts";
import { openStore } from "../support/open_store.ts";
import { connectClient, IDE_TOKEN, outcomeOf } from "./setup.ts";
import { startGateway } from "./gateway_process.ts";

if (postgresAvailable()) {
  Deno.test("serve fleet: two gateways on one PostgreSQL store; one write approved once, dispatched once", async () => {
    const postgres = await startPostgres();
    const ws = await createWriteWorkspace();
    const upstream = await startWriteServerHttp(ws, "success");
    const gateways: Awaited<ReturnType<typeof startGateway>>[] = [];
    try {
      const db = await postgres.createDatabase();
      await (await openStore(db)).close();
      const config = `${ws.root}/serve.json`;
      await Deno.writeTextFile(
        config,
        JSON.stringify({
          servers: [{ id: "records", url: upstream.url }],
          allow: ["records.write_record"],
          // A fleet settles at start-up only claims older than any dispatch still in flight.
          serve: {
            clients: [{ name: "ide", tokenEnv: "IDE_TOKEN" }],
            recover: { olderThanMs: 120_000 },
          },
        }),
      );
      gateways.push(await startGateway(config, db), await startGateway(config, db));
      const [a, b] = await Promise.all(gateways.map((g) => connectClient(g.url, IDE_TOKEN)));
      const args = { key: "fleet-1", value: VALUE };
      const call = (client: typeof a) =>
        client.callTool({ name: "records__write_record", arguments: args });
      try {
        const viaA = outcomeOf(await call(a));
        const viaB = outcomeOf(await call(b));
        assert.equal(viaA.errorCode, "approval_pending");
        assert.equal(viaB.approvalId, viaA.approvalId, "one approval, whichever instance");
        const store = await openStore(db);
        try {
          assert.equal((await store.list()).length, 1);
          await store.approve(viaA.approvalId as string, { by: "alice" });
        } finally {
          await store.close();
        }
        // Retries hit both instances at once: exactly one dispatch.
        const results = (await Promise.all([call(a), call(b), call(a), call(b)])).map(outcomeOf);
        const committed = results.filter((outcome) =>
          outcome.errorCode === undefined && outcome.effect === "committed"
        );
        assert.ok(committed.length >= 1, JSON.stringify(results));
        for (const outcome of results) {
          assert.equal(outcome.approvalId, viaA.approvalId);
          assert.ok(
            outcome.errorCode === undefined || outcome.errorCode === "approval_already_claimed",
            JSON.stringify(outcome),
          );
        }
        assert.equal(receivedFor(await readLedger(ws.ledger), args.key).length, 1);
        const final = await openStore(db);
        try {
          assert.equal((await final.get(viaA.approvalId as string))?.state, "committed");
        } finally {
          await final.close();
        }
      } finally {
        await a.close();
        await b.close();
      }
    } finally {
      for (const gateway of gateways) await gateway.stop();
      await upstream.stop();
      await ws.remove();
      await postgres.stop();
    }
  });
}
