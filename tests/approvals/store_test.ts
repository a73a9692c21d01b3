/**
 * The shared approval-store suite over memory, libSQL on a real file in a temp dir, and the
 * remote libSQL path (`@libsql/client`, as for a Turso URL) pointed at a local file, plus the
 * durable-store guard.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertDurableStore, MemoryApprovalStore } from "../../mod.ts";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { approvalStoreSuite } from "../support/approval_store_suite.ts";
import { ClientApprovalStore } from "../support/client_store.ts";

approvalStoreSuite("memory", (clock) =>
  Promise.resolve({
    store: new MemoryApprovalStore({ now: clock.now }),
    cleanup: () => Promise.resolve(),
  }));

approvalStoreSuite("libsql file", async (clock) => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-approvals-" });
  const store = await LibsqlApprovalStore.open(join(dir, "approvals.db"), { now: clock.now });
  return { store, cleanup: () => Deno.remove(dir, { recursive: true }) };
});

approvalStoreSuite("libsql remote path (@libsql/client on a file: URL)", async (clock) => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-approvals-client-" });
  const store = await ClientApprovalStore.open(`file:${join(dir, "approvals.db")}`, clock.now);
  return { store, cleanup: () => Deno.remove(dir, { recursive: true }) };
});

Deno.test("assertDurableStore refuses a memory store unless the test option is passed", async () => {
  const memory = new MemoryApprovalStore();
  assert.equal(memory.durable, false);
  assert.throws(
    () => assertDurableStore(memory),
    (error: unknown) =>
      error instanceof Error && "code" in error && error.code === "approval_store_not_durable",
  );
  assert.throws(() => assertDurableStore(memory, { allowNonDurableStoreForTests: false }));
  assertDurableStore(memory, { allowNonDurableStoreForTests: true });
  const inMemoryLibsql = await LibsqlApprovalStore.open(":memory:");
  try {
    assert.equal(inMemoryLibsql.durable, false);
    assert.throws(() => assertDurableStore(inMemoryLibsql), /durable approval store/);
  } finally {
    await inMemoryLibsql.close();
  }
  const dir = await Deno.makeTempDir({ prefix: "sluice-approvals-" });
  try {
    const file = await LibsqlApprovalStore.open(join(dir, "a.db"));
    assert.equal(file.durable, true);
    assertDurableStore(file);
    await file.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("each entry loads only its own driver: mod.ts none, ./libsql libSQL, ./postgres postgres, ./d1 none", async () => {
  const graph = async (entry: string) => {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", new URL(`../../${entry}`, import.meta.url).pathname],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    const info = JSON.parse(new TextDecoder().decode(output.stdout)) as {
      modules: { specifier: string }[];
    };
    return info.modules.map((module) => module.specifier);
  };
  const core = await graph("mod.ts");
  assert.ok(core.some((specifier) => specifier.endsWith("/src/approvals/memory.ts")));
  assert.deepEqual(core.filter((specifier) => specifier.includes("libsql")), []);
  const entry = await graph("libsql.ts");
  assert.ok(entry.some((specifier) => specifier.includes("@libsql/client")));
  assert.deepEqual(core.filter((specifier) => /npm:\/?postgres@/.test(specifier)), []);
  const postgres = await graph("postgres.ts");
  assert.ok(postgres.some((specifier) => /npm:\/?postgres@/.test(specifier)));
  assert.deepEqual(postgres.filter((specifier) => specifier.includes("libsql")), []);
  // The Workers entry loads no database driver at all: only the binding it is given.
  const d1 = await graph("d1.ts");
  assert.deepEqual(d1.filter((specifier) => /libsql|npm:\/?postgres@/.test(specifier)), []);
});
