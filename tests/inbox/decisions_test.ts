/**
 * The inbox's edit-before-approving and standing-grant forms on the real handler over a real
 * in-memory store: each records the authorized person, never a form field; each is refused
 * cross-origin, without its token, or stale; edited arguments round-trip exactly, hostile ones
 * included, and render inert.
 */
import assert from "node:assert/strict";
import { MemoryApprovalStore } from "../../src/approvals/memory.ts";
import type { ApprovalStore } from "../../src/approvals/types.ts";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { approvalInbox, type InboxHandler } from "../../inbox.ts";
import { ASTRAL_ARGUMENTS, makeRequest } from "../../fixtures/approval_requests.ts";

const ORIGIN = "http://127.0.0.1:8787";
const PERSON_HEADER = "x-test-person";

function setup() {
  const store = new MemoryApprovalStore();
  const inbox = approvalInbox({
    store,
    authorize: (request) => request.headers.get(PERSON_HEADER) ?? undefined,
    refreshMs: 0,
  });
  return { store, inbox };
}

const get = (path: string, person = "alice") =>
  new Request(`${ORIGIN}${path}`, { headers: { [PERSON_HEADER]: person } });

function post(path: string, fields: Record<string, string>, origin: string | null = ORIGIN) {
  return new Request(`${ORIGIN}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      [PERSON_HEADER]: "alice",
      ...(origin === null ? {} : { origin }),
    },
    body: new URLSearchParams(fields).toString(),
  });
}

/** The hidden fields of the form with `id` on the page at `path`, and the form's markup. */
async function form(inbox: InboxHandler, path: string, id: string) {
  const page = await (await inbox(get(path))).text();
  const start = page.indexOf(id);
  assert.ok(start > 0, `the page has ${id}`);
  const block = page.slice(start, page.indexOf("</form>", start));
  const token = /name="token" value="([^"]+)"/.exec(block)?.[1];
  const version = /name="version" value="([^"]+)"/.exec(block)?.[1];
  assert.ok(token && version);
  return { fields: { token, version }, block };
}

Deno.test("inbox approve with edits: the person's arguments, exactly, recorded by the authorized person", async () => {
  const { store, inbox } = setup();
  const hostile = {
    document: '<img src=x onerror="alert(1)"></textarea><script>alert(2)</script>',
    title: "invoice\u202Egpj.exe \u200Bzero",
  };
  const record = await store.prepare(
    await makeRequest(Date.now(), { runId: "r", callId: "c" }, hostile),
  );
  const { fields, block } = await form(inbox, `/approvals/${record.id}`, 'id="edit"');
  assert.ok(!block.includes("<img"), "the arguments render inert in the textarea");
  assert.ok(!block.includes("</textarea><script>"));
  assert.ok(!/[\u202A-\u202E\u200B]/.test(block), "no raw bidi or zero-width character");
  assert.match(block, /invoice\\u202egpj\.exe \\u200bzero/);
  // What the textarea shows parses back to exactly what was stored.
  const shown = /<textarea id="edit-arguments"[^>]*>([^<]*)<\/textarea>/.exec(block)![1]
    .replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'").replaceAll("&amp;", "&");
  assert.deepEqual(JSON.parse(shown), hostile);
  const edited = { document: "doc-1", title: "Edited \u202E" };
  const response = await inbox(post(`/approvals/${record.id}/edit`, {
    ...fields,
    arguments: JSON.stringify(edited),
    note: "fixed the title",
    by: "mallory",
  }));
  assert.equal(response.status, 200);
  assert.match(await response.text(), /Approved with edits by alice/);
  const original = (await store.get(record.id))!;
  assert.equal(original.state, "superseded");
  assert.equal(original.decision?.by, "alice");
  const approval = (await store.get(original.supersededBy!))!;
  assert.equal(approval.state, "approved");
  assert.deepEqual(approval.arguments, edited);
  assert.deepEqual([approval.decision?.by, approval.decision?.note], ["alice", "fixed the title"]);
  // The page of the original links to the edit; a replay of the form is stale.
  const page = await (await inbox(get(`/approvals/${record.id}`))).text();
  assert.ok(page.includes(`/approvals/${approval.id}`));
  const replay = await inbox(
    post(`/approvals/${record.id}/edit`, { ...fields, arguments: '{"a":1}' }),
  );
  assert.equal(replay.status, 409);
  assert.match(await replay.text(), /inbox_stale_form/);
});

Deno.test("inbox approve with edits: not JSON, not an object, cross-origin or without a token: refused, nothing recorded", async () => {
  const { store, inbox } = setup();
  const record = await store.prepare(await makeRequest(Date.now()));
  const { fields } = await form(inbox, `/approvals/${record.id}`, 'id="edit"');
  for (
    const [body, origin, status, code] of [
      [{ ...fields, arguments: "{not json" }, ORIGIN, 400, "inbox_form_invalid"],
      [{ ...fields, arguments: "[1]" }, ORIGIN, 400, "inbox_form_invalid"],
      [{ ...fields, arguments: "{}" }, "https://evil.example", 403, "inbox_origin_refused"],
      [{ arguments: "{}" }, ORIGIN, 403, "inbox_token_invalid"],
    ] as const
  ) {
    const response = await inbox(post(`/approvals/${record.id}/edit`, body, origin));
    assert.equal(response.status, status, code);
    assert.match(await response.text(), new RegExp(code));
  }
  // The decide form's token does not work for the edit form.
  const decide = await form(inbox, `/approvals/${record.id}`, 'id="decide"');
  const crossed = await inbox(
    post(`/approvals/${record.id}/edit`, { ...decide.fields, arguments: "{}" }),
  );
  assert.equal(crossed.status, 403);
  assert.equal((await store.get(record.id))?.state, "pending");
  assert.equal((await store.list()).length, 1);
});

Deno.test("inbox grants: made by the authorized person, listed, revoked with the form's token", async () => {
  const { store, inbox } = setup();
  const record = await store.prepare(
    await makeRequest(Date.now(), { runId: "run-9", callId: "c" }),
  );
  const grantForm = await form(inbox, `/approvals/${record.id}`, 'id="grant"');
  const made = await inbox(post(`/approvals/${record.id}/grant`, {
    ...grantForm.fields,
    uses: "2",
    this_run: "yes",
    note: "the rest of this run",
    by: "mallory",
  }));
  assert.equal(made.status, 200);
  const [grant] = await store.listGrants();
  assert.deepEqual(
    [grant.grantedBy, grant.runId, grant.maxUses, grant.toolName, grant.catalogDigest],
    ["alice", "run-9", 2, record.toolName, record.catalogDigest],
  );
  assert.equal((await store.get(record.id))?.state, "pending", "the approval itself still waits");
  // Neither a run nor hours: refused (on a fresh form; the first one is spent).
  const fresh = await form(inbox, `/approvals/${record.id}`, 'id="grant"');
  const unbounded = await inbox(
    post(`/approvals/${record.id}/grant`, { ...fresh.fields, uses: "2" }),
  );
  assert.equal(unbounded.status, 400);
  assert.equal((await store.listGrants()).length, 1);
  const revokeForm = await form(inbox, "/grants", `data-grant="${grant.id}"`);
  assert.match(revokeForm.block, /active/);
  for (
    const [body, origin, status] of [
      [revokeForm.fields, "https://evil.example", 403],
      [{ version: "active" }, ORIGIN, 403],
    ] as const
  ) {
    const refused = await inbox(post(`/grants/${grant.id}/revoke`, body, origin));
    assert.equal(refused.status, status);
  }
  assert.equal((await store.getGrant(grant.id))?.revokedAt, undefined);
  const revoked = await inbox(post(`/grants/${grant.id}/revoke`, revokeForm.fields));
  assert.equal(revoked.status, 200);
  assert.match(await revoked.text(), /Grant revoked by alice/);
  assert.equal((await store.getGrant(grant.id))?.revokedBy, "alice");
  const replay = await inbox(post(`/grants/${grant.id}/revoke`, revokeForm.fields));
  assert.equal(replay.status, 409);
  assert.match(await replay.text(), /inbox_stale_form/);
  const list = await (await inbox(get("/grants"))).text();
  assert.match(list, /revoked by alice/);
});

/** The inbox over each store the replay test runs on: memory, and a libSQL file. */
const replayStores: [string, () => Promise<{ store: ApprovalStore; done: () => Promise<void> }>][] =
  [
    ["memory", () => Promise.resolve({ store: new MemoryApprovalStore(), done: async () => {} })],
    ["libsql file", async () => {
      const dir = await Deno.makeTempDir({ prefix: "sluice-inbox-grant-" });
      const store = await LibsqlApprovalStore.open(`${dir}/approvals.db`);
      return {
        store,
        done: async () => {
          await store.close();
          await Deno.remove(dir, { recursive: true });
        },
      };
    }],
  ];

for (const [name, open] of replayStores) {
  Deno.test(`inbox grants (${name}): a replayed grant form makes one grant, posted in turn or at once`, async () => {
    const { store, done } = await open();
    try {
      const inbox = approvalInbox({
        store,
        authorize: (request) => request.headers.get(PERSON_HEADER) ?? undefined,
        refreshMs: 0,
      });
      const record = await store.prepare(
        await makeRequest(Date.now(), { runId: "run-r", callId: "c" }),
      );
      const path = `/approvals/${record.id}`;
      // One form posted three times in turn, as a browser's resubmit does.
      const rendered = await form(inbox, path, 'id="grant"');
      const fields = { ...rendered.fields, uses: "2", this_run: "yes", hours: "3" };
      const first = await inbox(post(`${path}/grant`, fields));
      assert.equal(first.status, 200);
      const [grant] = await store.listGrants();
      assert.match(await first.text(), new RegExp(`Grant ${grant.id} made by alice`));
      for (const again of [fields, fields, { ...fields, uses: "5" }]) {
        const replay = await inbox(post(`${path}/grant`, again));
        assert.equal(replay.status, 409);
        const page = await replay.text();
        assert.match(page, /inbox_stale_form/);
        assert.ok(page.includes(grant.id), "the replay names the grant its form made");
      }
      assert.deepEqual(await store.listGrants(), [grant], "one grant, unchanged");
      // Another form posted three times at once.
      const other = await form(inbox, path, 'id="grant"');
      const body = { ...other.fields, uses: "3", this_run: "yes" };
      const answers = await Promise.all(
        [1, 2, 3].map(() => inbox(post(`${path}/grant`, body))),
      );
      const grants = await store.listGrants();
      assert.equal(grants.length, 2, "each rendered form makes one grant");
      const made = grants.find((g) => g.id !== grant.id)!;
      assert.deepEqual([made.maxUses, made.runId, made.grantedBy], [3, "run-r", "alice"]);
      for (const answer of answers) {
        assert.ok([200, 409].includes(answer.status), String(answer.status));
        assert.ok((await answer.text()).includes(made.id));
      }
      assert.ok(answers.some((answer) => answer.status === 200));
      assert.equal((await store.get(record.id))?.state, "pending");
    } finally {
      await done();
    }
  });
}

Deno.test("inbox approve with edits: astral-plane characters round-trip; unchanged arguments are the same arguments", async () => {
  const { store, inbox } = setup();
  const record = await store.prepare(
    await makeRequest(Date.now(), { runId: "r", callId: "c" }, ASTRAL_ARGUMENTS),
  );
  const { fields, block } = await form(inbox, `/approvals/${record.id}`, 'id="edit"');
  assert.ok(!/[\u{E0000}-\u{E007F}\u202E]/u.test(block), "no raw tag or bidi character");
  assert.ok(!/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(block), "no lone high surrogate");
  const shown = /<textarea id="edit-arguments"[^>]*>([^<]*)<\/textarea>/.exec(block)![1]
    .replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'").replaceAll("&amp;", "&");
  assert.deepEqual(JSON.parse(shown), ASTRAL_ARGUMENTS);
  // Submitted as shown: accepted, and bound to exactly the arguments the model sent.
  const response = await inbox(
    post(`/approvals/${record.id}/edit`, { ...fields, arguments: shown }),
  );
  assert.equal(response.status, 200);
  const original = (await store.get(record.id))!;
  const approval = (await store.get(original.supersededBy!))!;
  assert.deepEqual(approval.arguments, ASTRAL_ARGUMENTS);
  assert.equal(approval.argumentsDigest, record.argumentsDigest);
});
