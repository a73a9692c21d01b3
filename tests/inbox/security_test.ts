/**
 * The approval inbox's security properties, each on the real handler over a real in-memory
 * store: no anonymous access, the decider is the authorized person, CSRF refused (origin and
 * per-form token), a strict CSP with nonces and `frame-ancestors 'none'`, every value escaped,
 * and a form made stale by a decision elsewhere (or replayed) refused without overwriting.
 */
import assert from "node:assert/strict";
import { MemoryApprovalStore } from "../../src/approvals/memory.ts";
import type { ApprovalStore } from "../../src/approvals/types.ts";
import { approvalInbox, InboxError, type InboxHandler, oneTimeLogin } from "../../inbox.ts";
import { codeOf } from "../../src/codes.ts";
import { attr, text } from "../../src/inbox/html.ts";
import { expectationFor, makeRequest } from "../../fixtures/approval_requests.ts";

const ORIGIN = "http://127.0.0.1:8787";
const PERSON_HEADER = "x-test-person";

/** The test's sign-in: the person named in a header (a real host checks a session). */
const byHeader = (request: Request) => request.headers.get(PERSON_HEADER) ?? undefined;

function setup(store: ApprovalStore = new MemoryApprovalStore()) {
  const inbox = approvalInbox({ store, authorize: byHeader, refreshMs: 0 });
  return { store, inbox };
}

async function pending(store: ApprovalStore, args = { document: "doc-1", title: "Plan" }) {
  return await store.prepare(await makeRequest(Date.now(), {}, args));
}

function get(path: string, person: string | null = "alice"): Request {
  return new Request(`${ORIGIN}${path}`, {
    headers: person === null ? {} : { [PERSON_HEADER]: person },
  });
}

interface PostOptions {
  readonly person?: string | undefined;
  readonly origin?: string | null;
}

function post(path: string, fields: Record<string, string>, options: PostOptions = {}): Request {
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
  };
  const person = "person" in options ? options.person : "alice";
  if (person !== undefined) headers[PERSON_HEADER] = person;
  const origin = options.origin === undefined ? ORIGIN : options.origin;
  if (origin !== null) headers.origin = origin;
  return new Request(`${ORIGIN}${path}`, {
    method: "POST",
    headers,
    body: new URLSearchParams(fields).toString(),
  });
}

/** The hidden fields of the form `id` on a detail page. */
async function formFields(
  inbox: InboxHandler,
  approvalId: string,
  form: "decide" | "reconcile",
  person = "alice",
): Promise<{ token: string; version: string }> {
  const page = await (await inbox(get(`/approvals/${approvalId}`, person))).text();
  const start = page.indexOf(`id="${form}"`);
  assert.ok(start > 0, `the page has the ${form} form`);
  const block = page.slice(start, page.indexOf("</form>", start));
  const token = /name="token" value="([^"]+)"/.exec(block)?.[1];
  const version = /name="version" value="([^"]+)"/.exec(block)?.[1];
  assert.ok(token && version);
  return { token, version };
}

Deno.test("approvalInbox: refuses to be created without authorize (no default lets everyone in)", () => {
  const store = new MemoryApprovalStore();
  for (const options of [{ store }, { store, authorize: "alice" }, undefined]) {
    assert.throws(
      // deno-lint-ignore no-explicit-any
      () => approvalInbox(options as any),
      (error) => error instanceof InboxError && codeOf(error) === "inbox_options_invalid",
    );
  }
});

Deno.test("approvalInbox: an unauthenticated request sees nothing and changes nothing", async () => {
  const { store, inbox } = setup();
  const record = await pending(store, { document: "secret-doc", title: "Plan" });
  const fields = await formFields(inbox, record.id, "decide");
  for (
    const request of [
      get("/", null),
      get("/rows", null),
      get(`/approvals/${record.id}`, null),
      post(`/approvals/${record.id}/decide`, { ...fields, decision: "approve" }, {
        person: undefined,
      }),
    ]
  ) {
    const response = await inbox(request);
    const body = await response.text();
    assert.equal(response.status, 401, request.url);
    assert.match(body, /inbox_unauthorized/);
    assert.ok(!body.includes("secret-doc") && !body.includes(record.id), "nothing leaks");
  }
  // authorize returning an empty id, or throwing, refuses too.
  for (const authorize of [() => "", () => null, () => Promise.reject(new Error("down"))]) {
    const other = approvalInbox({ store, authorize });
    assert.equal((await other(get("/"))).status, 401);
  }
  assert.equal((await store.get(record.id))?.state, "pending");
});

Deno.test("approvalInbox: the decider recorded is the authorized person, never a form field", async () => {
  const { store, inbox } = setup();
  const record = await pending(store);
  const fields = await formFields(inbox, record.id, "decide");
  const response = await inbox(
    post(`/approvals/${record.id}/decide`, {
      ...fields,
      decision: "approve",
      note: "checked the title",
      by: "mallory",
      person: "mallory",
    }),
  );
  assert.equal(response.status, 200);
  assert.match(await response.text(), /Approved by alice/);
  const decided = await store.get(record.id);
  assert.equal(decided?.state, "approved");
  assert.equal(decided?.decision?.by, "alice");
  assert.equal(decided?.decision?.note, "checked the title");
  const events = await store.events(record.id);
  assert.equal(events.at(-1)?.by, "alice");
});

Deno.test("approvalInbox: deny with a note records a denial by the person", async () => {
  const { store, inbox } = setup();
  const record = await pending(store);
  const fields = await formFields(inbox, record.id, "decide");
  const response = await inbox(
    post(`/approvals/${record.id}/decide`, { ...fields, decision: "deny", note: "wrong doc" }),
  );
  assert.equal(response.status, 200);
  const denied = await store.get(record.id);
  assert.deepEqual([denied?.state, denied?.decision?.by, denied?.decision?.note], [
    "denied",
    "alice",
    "wrong doc",
  ]);
});

Deno.test("approvalInbox: a cross-origin POST is refused", async () => {
  const { store, inbox } = setup();
  const record = await pending(store);
  const fields = await formFields(inbox, record.id, "decide");
  for (const origin of ["https://evil.example", "http://127.0.0.1:9999", "null", null]) {
    const response = await inbox(
      post(`/approvals/${record.id}/decide`, { ...fields, decision: "approve" }, { origin }),
    );
    assert.equal(response.status, 403, String(origin));
    assert.match(await response.text(), /inbox_origin_refused/);
  }
  assert.equal((await store.get(record.id))?.state, "pending");
});

/** `token` with its last two characters replaced by two others. */
const forged = (token: string) => token.slice(0, -2) + (token.endsWith("AA") ? "BB" : "AA");

Deno.test("approvalInbox: a missing, forged or someone else's form token is refused", async () => {
  const { store, inbox } = setup();
  const record = await pending(store);
  const other = await pending(store, { document: "doc-2", title: "Other" });
  const fields = await formFields(inbox, record.id, "decide");
  const bobs = await formFields(inbox, record.id, "decide", "bob");
  const otherFields = await formFields(inbox, other.id, "decide");
  const attempts: Record<string, string>[] = [
    { version: fields.version, decision: "approve" },
    { token: "", version: fields.version, decision: "approve" },
    // Two characters changed, never to what they were (a token may end in "AA" itself).
    { token: forged(fields.token), version: fields.version, decision: "approve" },
    { ...bobs, decision: "approve" },
    { ...otherFields, decision: "approve" },
    { token: fields.token, version: "pending:9", decision: "approve" },
  ];
  for (const attempt of attempts) {
    const response = await inbox(post(`/approvals/${record.id}/decide`, attempt));
    assert.equal(response.status, 403, JSON.stringify(attempt));
    assert.match(await response.text(), /inbox_token_invalid/);
  }
  // A decide token does not work on the reconcile form.
  const reconcile = await inbox(
    post(`/approvals/${record.id}/reconcile`, {
      ...fields,
      outcome: "committed",
      evidence: "x",
    }),
  );
  assert.equal(reconcile.status, 403);
  assert.equal((await store.get(record.id))?.state, "pending");
});

Deno.test("approvalInbox: a form expires after formTtlMs", async () => {
  let now = Date.now();
  const store = new MemoryApprovalStore();
  const inbox = approvalInbox({ store, authorize: byHeader, formTtlMs: 1000, now: () => now });
  const record = await store.prepare(await makeRequest(now, {}, undefined, 3_600_000));
  const fields = await formFields(inbox, record.id, "decide");
  now += 1001;
  const response = await inbox(
    post(`/approvals/${record.id}/decide`, { ...fields, decision: "approve" }),
  );
  assert.equal(response.status, 403);
  assert.match(await response.text(), /expired/);
});

Deno.test("approvalInbox: decided elsewhere shows its real state; the stale form cannot overwrite it", async () => {
  const { store, inbox } = setup();
  const record = await pending(store);
  const fields = await formFields(inbox, record.id, "decide");
  // Bob denies it from the CLI while Alice's page is open.
  await store.deny(record.id, { by: "bob", note: "not today" });
  const response = await inbox(
    post(`/approvals/${record.id}/decide`, { ...fields, decision: "approve" }),
  );
  const body = await response.text();
  assert.equal(response.status, 409);
  assert.match(body, /inbox_stale_form/);
  assert.match(body, /state-denied/);
  assert.match(body, /denied by bob/);
  assert.ok(!body.includes('id="decide"'), "no form for a decided approval");
  const after = await store.get(record.id);
  assert.deepEqual([after?.state, after?.decision?.by], ["denied", "bob"]);
});

Deno.test("approvalInbox: a replayed form is refused after it was used once", async () => {
  const { store, inbox } = setup();
  const record = await pending(store);
  const fields = await formFields(inbox, record.id, "decide");
  const first = await inbox(
    post(`/approvals/${record.id}/decide`, { ...fields, decision: "approve", note: "ok" }),
  );
  assert.equal(first.status, 200);
  const replay = await inbox(
    post(`/approvals/${record.id}/decide`, { ...fields, decision: "deny", note: "changed mind" }),
  );
  assert.equal(replay.status, 409);
  assert.match(await replay.text(), /inbox_stale_form/);
  const after = await store.get(record.id);
  assert.deepEqual([after?.state, after?.decision?.note], ["approved", "ok"]);
  assert.equal((await store.events(record.id)).length, 2);
});

Deno.test("approvalInbox: an unknown outcome is reconciled with evidence by the person", async () => {
  const { store, inbox } = setup();
  const request = await makeRequest(Date.now());
  const record = await store.prepare(request);
  await store.approve(record.id, { by: "bob" });
  const claim = await store.claim(record.id, expectationFor(request));
  assert.ok(claim.ok);
  await store.recordOutcome(record.id, { outcome: "unknown", reason: "mcp_timeout" });
  const list = await (await inbox(get("/"))).text();
  assert.match(list, /Outcome unknown/);
  assert.match(list, /mcp_timeout/);
  const fields = await formFields(inbox, record.id, "reconcile");
  const missing = await inbox(
    post(`/approvals/${record.id}/reconcile`, { ...fields, outcome: "committed" }),
  );
  assert.equal(missing.status, 400);
  const response = await inbox(
    post(`/approvals/${record.id}/reconcile`, {
      ...fields,
      outcome: "committed",
      evidence: "row 42 is in the table",
      by: "mallory",
    }),
  );
  assert.equal(response.status, 200);
  const after = await store.get(record.id);
  assert.equal(after?.state, "reconciled");
  assert.deepEqual(
    [after?.reconciliation?.outcome, after?.reconciliation?.by, after?.reconciliation?.evidence],
    ["committed", "alice", "row 42 is in the table"],
  );
});

Deno.test("approvalInbox: every response has a strict CSP; scripts and styles carry its nonce", async () => {
  const { store, inbox } = setup();
  const record = await pending(store);
  const nonces = new Set<string>();
  for (const path of ["/", "/rows", `/approvals/${record.id}`, "/nowhere"]) {
    const response = await inbox(get(path));
    const csp = response.headers.get("content-security-policy") ?? "";
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /default-src 'none'/);
    assert.ok(!/unsafe-inline|unsafe-eval|\*/.test(csp), csp);
    const nonce = /script-src 'nonce-([A-Za-z0-9_-]+)'/.exec(csp)?.[1];
    assert.ok(nonce && nonce.length >= 16, csp);
    nonces.add(nonce);
    assert.equal(response.headers.get("x-frame-options"), "DENY");
    assert.equal(response.headers.get("x-content-type-options"), "nosniff");
    assert.equal(response.headers.get("cache-control"), "no-store");
    const body = await response.text();
    for (const tag of body.matchAll(/<(script|style)\b([^>]*)>/g)) {
      assert.equal(tag[2].trim(), `nonce="${nonce}"`, tag[0]);
    }
    assert.ok(!/\son[a-z]+=/i.test(body), "no inline event handlers");
  }
  assert.equal(nonces.size, 4, "a fresh nonce per response");
});

Deno.test("approvalInbox: markup, script, bidi and zero-width characters render inert", async () => {
  const { store, inbox } = setup();
  const hostile = {
    document: '<img src=x onerror="alert(1)"><script>alert(2)</script>',
    title: "invoice\u202Egpj.exe\u2066x\u2069 \u200Bzero\u200Dwidth\uFEFF",
    "</pre><b>": "' \" & <!-- -->",
  };
  const record = await pending(store, hostile);
  await store.approve(record.id, { by: "bob", note: "<i>fine</i>\u202E" });
  const body = await (await inbox(get(`/approvals/${record.id}`))).text();
  assert.ok(!body.includes("<img"), "no img element");
  assert.equal([...body.matchAll(/<script\b/g)].length, 1, "only the inbox's own script");
  assert.ok(!body.includes("<i>fine"), "the note is escaped");
  assert.ok(
    !/[\u202A-\u202E\u2066-\u2069\u200B-\u200F\uFEFF]/.test(body),
    "no raw bidi/zero-width",
  );
  assert.match(body, /⟦U\+202E⟧/);
  assert.match(body, /⟦U\+200B⟧/);
  assert.match(body, /⟦U\+FEFF⟧/);
  assert.match(body, /&lt;script&gt;alert\(2\)&lt;\/script&gt;/);
  // The escaping functions themselves.
  assert.equal(text("<a href='x'>&</a>").html, "&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;");
  assert.equal(attr('" onmouseover="x').html, "&quot; onmouseover=&quot;x");
  assert.equal(attr("a\u202Eb").html, "aU+202Eb");
  assert.match(text("\u{E0041}").html, /U\+E0041/);
});

Deno.test("approvalInbox: a body that is not a small urlencoded form is refused", async () => {
  const { store, inbox } = setup();
  const record = await pending(store);
  const json = new Request(`${ORIGIN}/approvals/${record.id}/decide`, {
    method: "POST",
    headers: { [PERSON_HEADER]: "alice", origin: ORIGIN, "content-type": "application/json" },
    body: "{}",
  });
  assert.equal((await inbox(json)).status, 415);
  const huge = post(`/approvals/${record.id}/decide`, { note: "x".repeat(20_000) });
  assert.equal((await inbox(huge)).status, 413);
  assert.equal((await store.get(record.id))?.state, "pending");
});

Deno.test("approvalInbox: mounted under basePath, other paths are not its own", async () => {
  const store = new MemoryApprovalStore();
  const inbox = approvalInbox({ store, authorize: byHeader, basePath: "/inbox" });
  const record = await pending(store);
  assert.equal((await inbox(get("/inbox/"))).status, 200);
  const page = await (await inbox(get(`/inbox/approvals/${record.id}`))).text();
  assert.match(page, new RegExp(`action="/inbox/approvals/${record.id}/decide"`));
  assert.equal((await inbox(get("/elsewhere"))).status, 404);
});

Deno.test("oneTimeLogin: the link works once and its session cookie authorizes", async () => {
  const store = new MemoryApprovalStore();
  const login = oneTimeLogin({ person: "alice" });
  const inbox = approvalInbox({ store, authorize: login.authorize });
  const handler = (request: Request) => login.handle(request) ?? inbox(request);
  assert.equal((await handler(new Request(`${ORIGIN}/`))).status, 401);
  const wrong = await handler(new Request(`${ORIGIN}/login?token=guess`));
  assert.equal(wrong.status, 401);
  const exchange = await handler(new Request(`${ORIGIN}${login.loginPath}`));
  assert.equal(exchange.status, 303);
  const cookie = exchange.headers.get("set-cookie") ?? "";
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Strict/);
  const session = cookie.split(";")[0];
  const page = await handler(new Request(`${ORIGIN}/`, { headers: { cookie: session } }));
  assert.equal(page.status, 200);
  assert.match(await page.text(), /signed in as <b id="person">alice<\/b>/);
  const again = await handler(new Request(`${ORIGIN}${login.loginPath}`));
  assert.equal(again.status, 401, "the link is spent");
  assert.match(await again.text(), /inbox_login_invalid/);
  const forged = await handler(
    new Request(`${ORIGIN}/`, { headers: { cookie: "sluice_inbox_session=forged" } }),
  );
  assert.equal(forged.status, 401);
});
