/**
 * The approval inbox in a real browser (Debian's headless Chromium, driven by playwright-core).
 *
 * 1. A gate run (a real host process, the separate write server over stdio, a libSQL store)
 *    leaves a pending write; `sluice inbox` (a real process) serves the store; after the
 *    one-time login the list shows it, the approval page shows its arguments; clicking approve
 *    with a note records the approval by the signed-in person; the host resumes and the write
 *    server's ledger shows exactly one call. Screenshots of the list and the approval are
 *    taken (into docs/ when `SLUICE_INBOX_SCREENSHOTS=docs`).
 * 2. Hostile arguments render inert (checked in the DOM, and no dialog opens); the list shows a
 *    new approval without a reload; a cross-origin form, a form without its token, a request
 *    without a session and a form made stale by a decision in another tab are each refused.
 * 3. Arguments with astral-plane characters (tag characters, emoji) shown in the edit box and
 *    submitted unchanged are accepted as the same arguments, digest and all.
 *
 * In CI the tests always run, so a missing Chromium fails them; elsewhere they run when
 * Chromium is installed.
 */
import assert from "node:assert/strict";
import type { Dialog, Page } from "playwright-core";
import { LibsqlApprovalStore } from "../../libsql.ts";
import { MemoryApprovalStore } from "../../src/approvals/memory.ts";
import { approvalInbox, oneTimeLogin } from "../../inbox.ts";
import { APPROVAL_TEXT } from "../../mod.ts";
import { SYNTHETIC_VALUE } from "../../fixtures/write_server.ts";
import { createWriteWorkspace } from "../../fixtures/write_server_launch.ts";
import { readLedger, receivedFor } from "../../fixtures/write_ledger.ts";
import { envelopeOf, hostArgs, startHost } from "../support/write_e2e.ts";
import { ASTRAL_ARGUMENTS, makeRequest } from "../../fixtures/approval_requests.ts";
import { browserTestsRun, launchChromium, startInboxCli } from "../support/inbox_browser.ts";

const RUN = browserTestsRun();
const DOCS = new URL("../../docs/", import.meta.url);

/** Where screenshots go: docs/ on request (to refresh the committed ones), else a temp dir. */
async function screenshotDir(): Promise<string> {
  if (Deno.env.get("SLUICE_INBOX_SCREENSHOTS") === "docs") return DOCS.pathname;
  return await Deno.makeTempDir({ prefix: "sluice-inbox-shots-" });
}

function watchDialogs(page: Page): string[] {
  const dialogs: string[] = [];
  page.on("dialog", (dialog: Dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    dialog.dismiss().catch(() => undefined);
  });
  return dialogs;
}

/** An inbox over a memory store, served in this process on loopback for alice's one-time login. */
function serveInbox(refreshMs: number) {
  const store = new MemoryApprovalStore();
  const login = oneTimeLogin({ person: "alice" });
  const inbox = approvalInbox({ store, authorize: login.authorize, refreshMs });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => login.handle(request) ?? inbox(request),
  );
  return { store, login, server, origin: `http://127.0.0.1:${server.addr.port}` };
}

/** What a test over a real host process, `sluice inbox` and Chromium gets. */
interface HostAndInbox {
  readonly ws: Awaited<ReturnType<typeof createWriteWorkspace>>;
  readonly db: string;
  readonly host: ReturnType<typeof startHost>;
  readonly approvalId: string;
  readonly page: Page;
  readonly dialogs: string[];
}

/**
 * A host process runs one write of `key` in `runId` to `approval_pending`; `sluice inbox` serves
 * its store; Chromium is signed in as alice on the list. Everything is stopped afterwards.
 */
async function withHostAndInbox(
  runId: string,
  key: string,
  height: number,
  body: (parts: HostAndInbox) => Promise<void>,
): Promise<void> {
  const ws = await createWriteWorkspace();
  const db = `${ws.root}/approvals.db`;
  const host = startHost(hostArgs(db, ws, "success", runId, key));
  let inbox: Awaited<ReturnType<typeof startInboxCli>> | undefined;
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  try {
    const pending = envelopeOf(await host.next("envelope"));
    assert.equal(pending.errorCode, "approval_pending");
    inbox = await startInboxCli(db, "alice");
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1100, height } });
    const dialogs = watchDialogs(page);
    // The one-time link signs in and lands on the list.
    await page.goto(inbox.loginLink);
    assert.equal(new URL(page.url()).pathname, "/");
    await body({ ws, db, host, approvalId: pending.approvalId!, page, dialogs });
  } finally {
    await browser?.close();
    await inbox?.stop();
    await host.finish();
    await ws.remove();
  }
}

Deno.test({
  name: "inbox in Chromium: a pending gate write is approved in the page and committed once",
  ignore: !RUN,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const key = "inbox-e2e-1";
    await withHostAndInbox(
      "run-inbox",
      key,
      720,
      async ({ ws, db, host, approvalId, page, dialogs }) => {
        assert.equal(await page.textContent("#person"), "alice");
        const row = page.locator(`tr[data-id="${approvalId}"]`);
        await row.waitFor();
        const cells = await row.locator("td").allTextContents();
        assert.deepEqual(cells.slice(1, 4), ["records", "save_record", "write"]);
        assert.match(cells[4], /^\d+m \d+s$/, "expiry counts down");
        const shots = await screenshotDir();
        await page.screenshot({ path: `${shots}/inbox-list.png` });
        // The approval in full, with its arguments.
        await row.locator("a").click();
        await page.waitForURL(`**/approvals/${approvalId}`);
        const args = JSON.parse((await page.textContent("#arguments")) ?? "");
        assert.deepEqual(args, { key, value: SYNTHETIC_VALUE });
        const facts = await page.locator("#approval").textContent() ?? "";
        for (const fact of ["records", "write_record", "records.save", "team-a", "run-inbox"]) {
          assert.ok(facts.includes(fact), fact);
        }
        assert.match(facts, /sha256:[0-9a-f]{64}/);
        await page.fill("#note", "checked the key in the browser");
        await page.screenshot({ path: `${shots}/inbox-approval.png`, fullPage: true });
        await page.click("#approve");
        await page.locator("#notice").waitFor();
        assert.match((await page.textContent("#notice")) ?? "", /Approved by alice/);
        assert.equal(await page.locator("#decide").count(), 0, "no form once decided");
        // The host sees the decision and resumes: committed, exactly once on the server.
        assert.equal((await host.next("decided")).state, "approved");
        const done = envelopeOf(await host.next("envelope"));
        assert.deepEqual([done.errorCode, done.effect], [undefined, "committed"]);
        await host.next("done");
        assert.equal(receivedFor(await readLedger(ws.ledger), key).length, 1);
        const store = await LibsqlApprovalStore.open(db);
        try {
          const record = await store.get(approvalId);
          assert.equal(record?.state, "committed");
          assert.equal(record?.decision?.by, "alice");
          assert.equal(record?.decision?.note, "checked the key in the browser");
        } finally {
          await store.close();
        }
        assert.deepEqual(dialogs, []);
      },
    );
  },
});

Deno.test({
  name: "inbox in Chromium: approve with edits; the write server receives the edited call once",
  ignore: !RUN,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const key = "inbox-edit-model";
    const edited = "inbox-edit-person";
    await withHostAndInbox(
      "run-inbox-edit",
      key,
      900,
      async ({ ws, db, host, approvalId, page, dialogs }) => {
        await page.goto(new URL(`/approvals/${approvalId}`, page.url()).href);
        // The textarea holds the model's arguments as JSON; the person changes the key.
        const shown = JSON.parse(await page.inputValue("#edit-arguments"));
        assert.deepEqual(shown, { key, value: SYNTHETIC_VALUE });
        await page.fill("#edit-arguments", JSON.stringify({ key: edited, value: SYNTHETIC_VALUE }));
        await page.fill("#edit-note", "wrong key: use mine");
        await page.click("#approve-edited");
        await page.locator("#notice").waitFor();
        assert.match((await page.textContent("#notice")) ?? "", /Approved with edits by alice/);
        assert.match((await page.textContent("#approval")) ?? "", /superseded/);
        // The host sees the decision, resumes the original id, and the edit runs, once.
        assert.equal((await host.next("decided")).state, "superseded");
        const done = envelopeOf(await host.next("envelope"));
        assert.deepEqual([done.errorCode, done.effect], [undefined, "committed"]);
        assert.equal(done.text?.[0], APPROVAL_TEXT.edited);
        await host.next("done");
        const ledger = await readLedger(ws.ledger);
        assert.equal(receivedFor(ledger, edited).length, 1);
        assert.equal(receivedFor(ledger, key).length, 0);
        const store = await LibsqlApprovalStore.open(db);
        try {
          const original = (await store.get(approvalId))!;
          assert.equal(original.state, "superseded");
          const edit = (await store.get(original.supersededBy!))!;
          assert.deepEqual(
            [edit.state, edit.decision?.by, edit.decision?.note],
            ["committed", "alice", "wrong key: use mine"],
          );
        } finally {
          await store.close();
        }
        assert.deepEqual(dialogs, []);
      },
    );
  },
});

Deno.test({
  name:
    "inbox in Chromium: hostile arguments inert, live refresh, and every forged or stale form refused",
  ignore: !RUN,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const { store, login, server, origin } = serveInbox(250);
    // Another origin (same site, other port) whose page posts a form to the inbox.
    const evil = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
      const target = new URL(request.url).searchParams.get("target") ?? "";
      return new Response(
        `<form method="post" action="${target}" id="f"><input name="decision" value="approve">` +
          `<button id="go">go</button></form>`,
        { headers: { "content-type": "text/html" } },
      );
    });
    const browser = await launchChromium();
    try {
      const hostile = {
        key: `<img src=x onerror="alert('img')"><script>alert('script')</script>`,
        value: "pay\u202Etxt.exe\u2066 \u200Bhidden\u200D\uFEFF",
        "<svg onload=alert(1)>": "</pre><iframe src=javascript:alert(2)>",
      };
      const record = await store.prepare(await makeRequest(Date.now(), {}, hostile, 600_000));
      const context = await browser.newContext();
      const page = await context.newPage();
      const dialogs = watchDialogs(page);
      await page.goto(`${origin}${login.loginPath}`);
      await page.goto(`${origin}/approvals/${record.id}`);
      await page.waitForLoadState("load");
      // Markup and script are text, not elements; invisible characters are visible markers.
      const pre = page.locator("#arguments");
      assert.equal(await pre.locator("*:not(.cp)").count(), 0, "no element inside the arguments");
      assert.equal(await page.locator("main img, main svg, main iframe").count(), 0);
      assert.equal(await page.locator("script").count(), 1, "only the inbox's own script");
      const shown = (await pre.textContent()) ?? "";
      assert.ok(shown.includes(`<script>alert('script')</script>`));
      assert.ok(shown.includes("<svg onload=alert(1)>"));
      assert.ok(!/[\u202A-\u202E\u2066-\u2069\u200B-\u200F\uFEFF]/.test(shown), "no raw bidi");
      assert.ok(shown.includes("⟦U+202E⟧") && shown.includes("⟦U+200B⟧"));
      assert.equal(await pre.locator(".cp").count(), 5);

      // The list shows a new approval without a reload.
      await page.goto(`${origin}/`);
      await page.evaluate(() => Object.assign(globalThis, { sameDocument: true }));
      const later = await store.prepare(
        await makeRequest(Date.now(), { runId: "run-live", callId: "c-9" }, { document: "d9" }),
      );
      await page.locator(`tr[data-id="${later.id}"]`).waitFor({ timeout: 15_000 });
      assert.equal(await page.evaluate(() => "sameDocument" in globalThis), true, "no reload");

      // A stale form: the approval is decided in tab A, then tab B submits its older form.
      const tabA = await context.newPage();
      const tabB = await context.newPage();
      await tabA.goto(`${origin}/approvals/${later.id}`);
      await tabB.goto(`${origin}/approvals/${later.id}`);
      await tabA.click("#deny");
      await tabA.locator("#notice").waitFor();
      const stale = await Promise.all([
        tabB.waitForResponse((response) => response.request().method() === "POST"),
        tabB.click("#approve"),
      ]);
      assert.equal(stale[0].status(), 409);
      assert.match((await tabB.textContent("#notice")) ?? "", /inbox_stale_form/);
      assert.match((await tabB.textContent("#approval")) ?? "", /denied by alice/);
      assert.equal((await store.get(later.id))?.state, "denied");

      // A form without its token.
      await page.goto(`${origin}/approvals/${record.id}`);
      await page.locator("#decide input[name=token]").evaluate((input) => input.remove());
      const missing = await Promise.all([
        page.waitForResponse((response) => response.request().method() === "POST"),
        page.click("#approve"),
      ]);
      assert.equal(missing[0].status(), 403);
      assert.match((await page.textContent("#notice")) ?? "", /inbox_token_invalid/);

      // A form posted from another origin, with the session cookie sent along.
      const target = `${origin}/approvals/${record.id}/decide`;
      await page.goto(
        `http://127.0.0.1:${evil.addr.port}/?target=${encodeURIComponent(target)}`,
      );
      const crossed = await Promise.all([
        page.waitForResponse((response) => response.url() === target),
        page.click("#go"),
      ]);
      assert.equal(crossed[0].status(), 403);
      assert.match((await page.textContent("#notice")) ?? "", /inbox_origin_refused/);

      // No session: a fresh browser context is refused.
      const anonymous = await browser.newContext();
      const outsider = await anonymous.newPage();
      const refused = await outsider.goto(`${origin}/approvals/${record.id}`);
      assert.equal(refused?.status(), 401);
      assert.ok(!((await outsider.content()).includes("svg onload")), "nothing leaks");
      await anonymous.close();

      assert.equal((await store.get(record.id))?.state, "pending", "nothing was recorded");
      assert.deepEqual(dialogs, [], "no dialog opened");
      assert.equal(await page.evaluate(() => "pwned" in globalThis), false);
    } finally {
      await browser.close();
      await server.shutdown();
      await evil.shutdown();
    }
  },
});

Deno.test({
  name:
    "inbox in Chromium: astral-plane arguments (tag characters, emoji) submitted unchanged are the same arguments",
  ignore: !RUN,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const { store, login, server, origin } = serveInbox(0);
    const browser = await launchChromium();
    try {
      const astral = ASTRAL_ARGUMENTS;
      const record = await store.prepare(await makeRequest(Date.now(), {}, astral, 600_000));
      const page = await browser.newPage();
      const dialogs = watchDialogs(page);
      await page.goto(`${origin}${login.loginPath}`);
      await page.goto(`${origin}/approvals/${record.id}`);
      // The box shows the arguments as JSON that parses back to exactly them.
      assert.deepEqual(JSON.parse(await page.inputValue("#edit-arguments")), astral);
      const [answer] = await Promise.all([
        page.waitForResponse((response) => response.request().method() === "POST"),
        page.click("#approve-edited"),
      ]);
      assert.equal(answer.status(), 200);
      assert.match((await page.textContent("#notice")) ?? "", /Approved with edits by alice/);
      const original = (await store.get(record.id))!;
      const approval = (await store.get(original.supersededBy!))!;
      assert.deepEqual(approval.arguments, astral);
      assert.equal(approval.argumentsDigest, record.argumentsDigest);
      assert.deepEqual(dialogs, []);
    } finally {
      await browser.close();
      await server.shutdown();
    }
  },
});
