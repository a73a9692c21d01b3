/**
 * The contention suite's plan, runner and checker, shared by every store. A plan (generated with
 * fast-check from a seed, so a failing interleaving can be replayed) gives each of P processes K
 * concurrent chains of N stories; each story drives one approval through the store's operations
 * (prepare, approve, deny, approveWithEdits, approveByGrant, claim, recordOutcome), with seeded
 * pauses between the steps, while other stories race for shared approvals and shared grants.
 * Every call that returned success is written down as an acknowledgement; afterwards a fresh
 * connection checks that every acknowledged state is on the approval's recorded path, that no
 * approval was claimed or decided twice, that every grant's uses equal its acknowledged uses, and
 * that every recorded history is legal in the state machine.
 *
 * @module
 */
import fc from "fast-check";
import {
  type ApprovalRecord,
  type ApprovalStore,
  type ClaimResult,
  TRANSITIONS,
} from "../../src/approvals/mod.ts";
import { approvalHistory } from "../../src/approvals/history.ts";
import type { JsonObject } from "../../src/identity/mod.ts";
import { expectationFor, makeRequest } from "../../fixtures/approval_requests.ts";

/** What one story does with its approval. */
export type StoryKind =
  | "commit"
  | "unknown"
  | "deny"
  | "edit"
  | "grant"
  | "draft-grant"
  | "shared-claim"
  | "shared-decide";

/** One story of a chain. */
export interface Story {
  readonly kind: StoryKind;
  /** Pauses before each step, in milliseconds (0: a macrotask turn, no timer wait). */
  readonly pauses: readonly number[];
  /** For `grant`: which shared grant; for `shared-*`: which shared approval. */
  readonly target: number;
  /** For `draft-grant`: whether the call's key is a draft one (the grant covers only those). */
  readonly draft: boolean;
}

/** A whole run: the stories of every chain of every process, and what is shared. */
export interface ContentionPlan {
  readonly seed: number;
  /** `stories[process][chain][n]`. */
  readonly stories: readonly (readonly (readonly Story[])[])[];
  /** Shared grants: how many uses each has. */
  readonly grantUses: readonly number[];
  /** How many shared approved approvals the stories race to claim. */
  readonly sharedClaims: number;
  /** How many shared pending approvals the stories race to decide. */
  readonly sharedDecisions: number;
}

/** What the parent created before the processes start. */
export interface SharedIds {
  readonly grants: readonly string[];
  /** The grant that covers only calls whose `document` starts with `draft-`. */
  readonly draftGrant: string;
  readonly claims: readonly string[];
  readonly decisions: readonly string[];
}

/** One call that returned success (or an expected refusal), as the caller saw it. */
export interface Ack {
  readonly id: string;
  readonly op: string;
  /** The state the call said the approval is in, or the refusal code it returned. */
  readonly result: string;
  /** For a grant use: the grant. */
  readonly grant?: string;
}

/** What one process reports. */
export interface ProcessReport {
  readonly acks: Ack[];
  /** Thrown errors nobody expected (codes), with the step. */
  readonly errors: string[];
  /** Store calls made. */
  readonly calls: number;
}

const KINDS: readonly StoryKind[] = [
  "commit",
  "unknown",
  "deny",
  "edit",
  "grant",
  "draft-grant",
  "shared-claim",
  "shared-decide",
];

/** Generates a plan from `seed`: P processes × K chains × N stories. */
export function contentionPlan(
  seed: number,
  processes: number,
  chains: number,
  stories: number,
): ContentionPlan {
  const sharedClaims = Math.max(2, Math.ceil(processes * chains / 2));
  const sharedDecisions = sharedClaims;
  const grantUses = [3, Math.max(1, processes * chains)];
  const story = fc.record({
    kind: fc.constantFrom(...KINDS),
    pauses: fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3 })), {
      minLength: 4,
      maxLength: 4,
    }),
    target: fc.nat({ max: 1_000 }),
    draft: fc.boolean(),
  });
  const arbitrary = fc.array(
    fc.array(fc.array(story, { minLength: stories, maxLength: stories }), {
      minLength: chains,
      maxLength: chains,
    }),
    { minLength: processes, maxLength: processes },
  );
  const [generated] = fc.sample(arbitrary, { seed, numRuns: 1 });
  return { seed, stories: generated, grantUses, sharedClaims, sharedDecisions };
}

const LONG_TTL = 30 * 60_000;

/** The document key of a story's own approval: unique per process, chain and story. */
const documentOf = (process: number, chain: number, n: number, draft: boolean) =>
  `${draft ? "draft" : "prod"}-${process}-${chain}-${n}`;

/** Creates the shared approvals and grants on `store`, before any process starts. */
export async function prepareShared(
  store: ApprovalStore,
  plan: ContentionPlan,
): Promise<SharedIds> {
  const request = await makeRequest(Date.now(), {}, undefined, LONG_TTL);
  const grant = (maxUses: number, argumentsSchema?: JsonObject) =>
    store.createGrant({
      serverId: request.serverId,
      toolName: request.toolName,
      bindingId: request.bindingId,
      catalogDigest: request.catalogDigest,
      expiresAt: Date.now() + LONG_TTL,
      maxUses,
      by: "gina",
      ...(argumentsSchema === undefined ? {} : { argumentsSchema }),
    }).then((created) => created.id);
  const grants = [];
  for (const uses of plan.grantUses) grants.push(await grant(uses));
  const draftGrant = await grant(1_000_000, {
    type: "object",
    properties: { document: { type: "string", pattern: "^draft-" } },
    required: ["document"],
  });
  const claims = [];
  for (let i = 0; i < plan.sharedClaims; i++) {
    const shared = await makeRequest(Date.now(), {}, { document: `shared-claim-${i}` }, LONG_TTL);
    const { id } = await store.prepare(shared);
    await store.approve(id, { by: "alice" });
    claims.push(id);
  }
  const decisions = [];
  for (let i = 0; i < plan.sharedDecisions; i++) {
    const shared = await makeRequest(Date.now(), {}, { document: `shared-decide-${i}` }, LONG_TTL);
    decisions.push((await store.prepare(shared)).id);
  }
  return { grants, draftGrant, claims, decisions };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const codeOf = (error: unknown) => String((error as { code?: unknown })?.code ?? error);

/**
 * Runs process `process` of the plan against `store`: its chains at once, each story after the
 * one before. Returns what succeeded and what failed unexpectedly.
 */
export async function runProcess(
  store: ApprovalStore,
  plan: ContentionPlan,
  shared: SharedIds,
  process: number,
): Promise<ProcessReport> {
  const acks: Ack[] = [];
  const errors: string[] = [];
  let calls = 0;
  const receipt = () => ({ resultDigest: "sha256:" + "b".repeat(64), at: Date.now() });

  const claimed = async (id: string, request: Parameters<typeof expectationFor>[0]) => {
    calls++;
    const result: ClaimResult = await store.claim(id, expectationFor(request));
    acks.push({ id, op: "claim", result: result.ok ? "claimed" : result.code });
    return result.ok;
  };
  const outcome = async (id: string, kind: "committed" | "unknown" | "not_started") => {
    calls++;
    const record = kind === "committed"
      ? await store.recordOutcome(id, { outcome: "committed", receipt: receipt() })
      : await store.recordOutcome(id, { outcome: kind, reason: "mcp_timeout" });
    acks.push({ id, op: "recordOutcome", result: record.state });
  };

  async function story(chain: number, n: number, s: Story): Promise<void> {
    const step = async (k: number) => await pause(s.pauses[k % s.pauses.length]);
    const draft = s.kind === "draft-grant" ? s.draft : false;
    const request = await makeRequest(
      Date.now(),
      {
        runId: `run-${plan.seed}-${process}-${chain}`,
        callId: `call-${n}`,
      },
      { document: documentOf(process, chain, n, draft) },
      LONG_TTL,
    );
    if (s.kind === "shared-claim") {
      const id = shared.claims[s.target % shared.claims.length];
      const shareRequest = await makeRequest(Date.now(), {}, {
        document: `shared-claim-${s.target % shared.claims.length}`,
      });
      await step(0);
      if (await claimed(id, shareRequest)) {
        await step(1);
        await outcome(id, "committed");
      }
      return;
    }
    if (s.kind === "shared-decide") {
      const id = shared.decisions[s.target % shared.decisions.length];
      await step(0);
      const approve = s.draft;
      try {
        calls++;
        const record = approve
          ? await store.approve(id, { by: `p${process}` })
          : await store.deny(id, { by: `p${process}` });
        acks.push({ id, op: approve ? "approve" : "deny", result: record.state });
      } catch (error) {
        // Losing the race for the decision is the expected refusal.
        if (codeOf(error) !== "approval_invalid_transition") throw error;
      }
      return;
    }
    await step(0);
    calls++;
    const { id } = await store.prepare(request);
    acks.push({ id, op: "prepare", result: "pending" });
    await step(1);
    switch (s.kind) {
      case "commit":
      case "unknown": {
        calls++;
        const approved = await store.approve(id, { by: "alice" });
        acks.push({ id, op: "approve", result: approved.state });
        await step(2);
        if (await claimed(id, request)) {
          await step(3);
          await outcome(id, s.kind === "commit" ? "committed" : "unknown");
        }
        return;
      }
      case "deny": {
        calls++;
        const denied = await store.deny(id, { by: "dana" });
        acks.push({ id, op: "deny", result: denied.state });
        return;
      }
      case "edit": {
        calls++;
        const edited = await store.approveWithEdits(id, {
          by: "erin",
          arguments: { document: documentOf(process, chain, n, false), title: "edited" },
        });
        acks.push({ id, op: "approveWithEdits", result: edited.original.state });
        acks.push({
          id: edited.approval.id,
          op: "approveWithEdits",
          result: edited.approval.state,
        });
        await step(2);
        const editedRequest = await makeRequest(Date.now(), {}, edited.approval.arguments);
        if (await claimed(edited.approval.id, editedRequest)) {
          await step(3);
          await outcome(edited.approval.id, "committed");
        }
        return;
      }
      case "grant":
      case "draft-grant": {
        const grant = s.kind === "grant"
          ? shared.grants[s.target % shared.grants.length]
          : shared.draftGrant;
        calls++;
        const result = await store.approveByGrant(id, grant);
        acks.push({
          id,
          op: "approveByGrant",
          result: result.ok ? "approved" : result.code,
          grant,
        });
        if (!result.ok) return;
        await step(2);
        if (await claimed(id, request)) {
          await step(3);
          await outcome(id, "not_started");
        }
        return;
      }
    }
  }

  await Promise.all(plan.stories[process].map(async (chain, k) => {
    for (let n = 0; n < chain.length; n++) {
      try {
        await story(k, n, chain[n]);
      } catch (error) {
        errors.push(`${chain[n].kind}: ${codeOf(error)}`);
      }
    }
  }));
  return { acks, errors, calls };
}

/** What the checker found. */
export interface ContentionFindings {
  /** Acknowledged states the database does not hold (lost writes), one line each. */
  readonly lost: string[];
  /** Approvals claimed or decided more than once, or grants used past what was acknowledged. */
  readonly duplicated: string[];
  /** Records whose history is not a legal path, or refusals that broke a rule. */
  readonly illegal: string[];
  /** How many approvals and acknowledgements were checked. */
  readonly approvals: number;
  readonly acks: number;
}

/** The states a record has been in, oldest first. */
const pathOf = (record: ApprovalRecord) => approvalHistory(record).map((event) => event.to);

/**
 * Checks every acknowledgement of every process against a fresh connection's view.
 */
export async function checkContention(
  fresh: ApprovalStore,
  shared: SharedIds,
  reports: readonly ProcessReport[],
): Promise<ContentionFindings> {
  const lost: string[] = [];
  const duplicated: string[] = [];
  const illegal: string[] = [];
  const acks = reports.flatMap((report) => report.acks);
  const records = new Map((await fresh.list()).map((record) => [record.id, record]));
  for (const ack of acks) {
    const record = records.get(ack.id);
    if (record === undefined) {
      lost.push(`${ack.op} -> ${ack.result}: approval ${ack.id} is not in the database`);
      continue;
    }
    if (!ack.result.startsWith("approval_") && !pathOf(record).includes(ack.result as never)) {
      lost.push(`${ack.op} -> ${ack.result}: approval ${ack.id} is ${record.state}`);
    }
  }
  // One claim and one decision per approval, whoever asked.
  const count = (op: (ack: Ack) => boolean) => {
    const counts = new Map<string, number>();
    for (const ack of acks.filter(op)) counts.set(ack.id, (counts.get(ack.id) ?? 0) + 1);
    return counts;
  };
  for (const [id, n] of count((ack) => ack.op === "claim" && ack.result === "claimed")) {
    if (n > 1) duplicated.push(`approval ${id} claimed ${n} times`);
  }
  const decided = count((ack) =>
    (ack.op === "approve" && ack.result === "approved") ||
    (ack.op === "deny" && ack.result === "denied") ||
    (ack.op === "approveByGrant" && ack.result === "approved")
  );
  for (const [id, n] of decided) {
    if (n > 1) duplicated.push(`approval ${id} decided ${n} times`);
  }
  for (const [id, n] of count((ack) => ack.op === "recordOutcome")) {
    if (n > 1) duplicated.push(`approval ${id} given ${n} outcomes`);
  }
  // A shared decision went the way its one acknowledged decider said.
  for (const id of shared.decisions) {
    const winners = acks.filter((ack) =>
      ack.id === id && (ack.op === "approve" || ack.op === "deny")
    );
    const record = records.get(id);
    if (winners.length === 1 && record?.state !== winners[0].result) {
      lost.push(`shared decision ${id}: ${winners[0].result} acknowledged, ${record?.state} held`);
    }
    if (winners.length === 0 && record?.state !== "pending") {
      illegal.push(`shared decision ${id} is ${record?.state} but nobody was told so`);
    }
  }
  // Grants: recorded uses equal acknowledged uses; the draft grant approved only draft calls.
  for (const grantId of [...shared.grants, shared.draftGrant]) {
    const grant = await fresh.getGrant(grantId);
    const used = acks.filter((ack) =>
      ack.op === "approveByGrant" && ack.grant === grantId && ack.result === "approved"
    ).length;
    if (grant === undefined) {
      lost.push(`grant ${grantId} is not in the database`);
      continue;
    }
    if (grant.uses !== used) {
      (grant.uses > used ? duplicated : lost).push(
        `grant ${grantId}: ${used} uses acknowledged, ${grant.uses} recorded`,
      );
    }
    if (grant.uses > grant.maxUses) {
      duplicated.push(`grant ${grantId} used past its maximum`);
    }
  }
  for (const record of records.values()) {
    const path = pathOf(record);
    for (let i = 1; i < path.length; i++) {
      if (!TRANSITIONS[path[i - 1]].includes(path[i])) {
        illegal.push(`approval ${record.id}: ${path[i - 1]} -> ${path[i]}`);
      }
    }
    if (
      record.decision?.by === `grant:${shared.draftGrant}` &&
      !String(record.arguments.document).startsWith("draft-")
    ) {
      illegal.push(
        `approval ${record.id} (${record.arguments.document}) approved by the draft grant`,
      );
    }
  }
  return { lost, duplicated, illegal, approvals: records.size, acks: acks.length };
}
