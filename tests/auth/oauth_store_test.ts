/**
 * Token stores: the in-memory one and the durable libSQL one, whose records are sealed with
 * AES-GCM under the host's key (the database file never holds a token in clear).
 */
import assert from "node:assert/strict";
import { AuthError, MemoryTokenStore, type TokenStore } from "../../mod.ts";
import { LibsqlApprovalStore, LibsqlTokenStore } from "../../libsql.ts";

const SENTINEL = "sentinel-access-token-7f3a9c";
const record = { access_token: SENTINEL, refresh_token: "sentinel-refresh-1b2c", expires_at: 1 };

async function roundTrip(store: TokenStore): Promise<void> {
  assert.equal(await store.get("tokens https://mcp.example/mcp"), undefined);
  await store.set("tokens https://mcp.example/mcp", record);
  assert.deepEqual(await store.get("tokens https://mcp.example/mcp"), record);
  await store.set("tokens https://mcp.example/mcp", { ...record, expires_at: 2 });
  assert.equal((await store.get("tokens https://mcp.example/mcp"))!.expires_at, 2);
  await store.delete("tokens https://mcp.example/mcp");
  assert.equal(await store.get("tokens https://mcp.example/mcp"), undefined);
}

Deno.test("MemoryTokenStore: set, get, replace, delete", async () => {
  await roundTrip(new MemoryTokenStore());
});

Deno.test("LibsqlTokenStore: sealed at rest beside the approval store; a wrong key is refused", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-tokens-" });
  const path = `${dir}/sluice.db`;
  const key = crypto.getRandomValues(new Uint8Array(32));
  // The same database file as an approval store: the token table sits beside its tables.
  const approvals = await LibsqlApprovalStore.open(path);
  const store = await LibsqlTokenStore.open(path, { key });
  try {
    await roundTrip(store);
    await store.set("tokens https://mcp.example/mcp", record);
    await store.set("client https://as.example", { client_id: "abc" });
  } finally {
    store.close();
    await approvals.close();
  }
  // A restart reads it back with the same key.
  const reopened = await LibsqlTokenStore.open(path, { key });
  try {
    assert.deepEqual(await reopened.get("tokens https://mcp.example/mcp"), record);
  } finally {
    reopened.close();
  }
  // Nothing in any file of the database holds the token in clear. The last close may still be
  // checkpointing the WAL into the database: a file that vanishes while the files are read
  // means they are read again, all of them, once it has settled.
  for (let attempt = 1;; attempt++) {
    try {
      for await (const entry of Deno.readDir(dir)) {
        const bytes = await Deno.readFile(`${dir}/${entry.name}`);
        const text = new TextDecoder("latin1").decode(bytes);
        assert.ok(!text.includes(SENTINEL), `${entry.name} holds the token in clear`);
        assert.ok(!text.includes("sentinel-refresh"), `${entry.name} holds the refresh token`);
      }
      break;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound) || attempt === 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const wrong = await LibsqlTokenStore.open(path, {
    key: crypto.getRandomValues(new Uint8Array(32)),
  });
  try {
    await assert.rejects(
      () => wrong.get("tokens https://mcp.example/mcp"),
      (error) => error instanceof AuthError && error.code === "auth_store_failed",
    );
  } finally {
    wrong.close();
  }
  await assert.rejects(
    () => LibsqlTokenStore.open(path, { key: new Uint8Array(5) }),
    (error) => error instanceof AuthError && error.code === "auth_config_invalid",
  );
  await Deno.remove(dir, { recursive: true });
});
