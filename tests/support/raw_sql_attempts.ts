/**
 * The raw-SQL attacks on an approval database that the schema's triggers must refuse, shared by
 * the libSQL and PostgreSQL tests, and the rows in every state they are aimed at.
 *
 * @module
 */
import type { ApprovalStore } from "../../src/approvals/mod.ts";
import { expectationFor, makeRequest } from "../../fixtures/approval_requests.ts";

/** The ids of one approval in each state (and a second pending one), seeded through a store. */
export type SeededIds = Record<
  | "pending"
  | "pending2"
  | "approved"
  | "claimed"
  | "committed"
  | "unknown"
  | "reconciled"
  | "denied",
  string
>;

/** Prepares and moves one approval into each state through `store`'s own calls. */
export async function seedStates(store: ApprovalStore): Promise<SeededIds> {
  const ids: Record<string, string> = {};
  const request = await makeRequest(Date.now());
  const expected = expectationFor(request);
  const make = async (name: string) => (ids[name] = (await store.prepare(request)).id);
  await make("pending");
  await make("pending2");
  await store.approve(await make("approved"), { by: "alice" });
  await store.approve(await make("claimed"), { by: "alice" });
  await store.claim(ids.claimed, expected);
  await store.approve(await make("committed"), { by: "alice" });
  await store.claim(ids.committed, expected);
  await store.recordOutcome(ids.committed, {
    outcome: "committed",
    receipt: { resultDigest: "sha256:r", at: 1 },
  });
  await store.approve(await make("unknown"), { by: "alice" });
  await store.claim(ids.unknown, expected);
  await store.recordOutcome(ids.unknown, { outcome: "unknown", reason: "mcp_timeout" });
  await store.approve(await make("reconciled"), { by: "alice" });
  await store.claim(ids.reconciled, expected);
  await store.recordOutcome(ids.reconciled, { outcome: "unknown", reason: "mcp_timeout" });
  await store.reconcile(ids.reconciled, { outcome: "committed", evidence: "e", by: "ops" });
  await store.deny(await make("denied"), { by: "bob" });
  return ids as SeededIds;
}

/** One attack: a label, SQL with `?` parameters, their values, and the refusal it must meet. */
export type RawSqlAttempt = [
  label: string,
  sql: string,
  args: (string | number)[],
  refusal: RegExp,
];

/** Every attack on rows seeded by {@link seedStates}; none may change a row (or so its history). */
export function rawSqlAttempts(ids: SeededIds): RawSqlAttempt[] {
  return [
    ["terminal row back", "UPDATE approvals SET state = 'claimed' WHERE id = ?", [
      ids.committed,
    ], /terminal approval is immutable/],
    ["receipt rewritten", "UPDATE approvals SET result_digest = 'sha256:x' WHERE id = ?", [
      ids.committed,
    ], /terminal approval is immutable/],
    ["backward claimed→approved", "UPDATE approvals SET state = 'approved' WHERE id = ?", [
      ids.claimed,
    ], /illegal approval transition/],
    [
      "skip pending→claimed",
      "UPDATE approvals SET state = 'claimed', claimed_at = 1 WHERE id = ?",
      [
        ids.pending,
      ],
      /illegal approval transition/,
    ],
    [
      "unknown→committed without a person",
      "UPDATE approvals SET state = 'committed', result_digest = 'x' WHERE id = ?",
      [
        ids.unknown,
      ],
      /illegal approval transition/,
    ],
    ["reconciled reopened", "UPDATE approvals SET state = 'unknown' WHERE id = ?", [
      ids.reconciled,
    ], /terminal approval is immutable/],
    ["denied approved", "UPDATE approvals SET state = 'approved' WHERE id = ?", [
      ids.denied,
    ], /terminal approval is immutable/],
    ["approved back to pending", "UPDATE approvals SET state = 'pending' WHERE id = ?", [
      ids.approved,
    ], /illegal approval transition/],
    [
      "catalog digest swapped",
      "UPDATE approvals SET catalog_digest = 'sha256:evil' WHERE id = ?",
      [
        ids.approved,
      ],
      /bound identity of an approval is immutable/,
    ],
    [
      "arguments swapped on a pending row",
      "UPDATE approvals SET state = 'approved', decided_by = 'x', arguments_json = '{}' WHERE id = ?",
      [
        ids.pending,
      ],
      /bound identity of an approval is immutable/,
    ],
    [
      "expiry extended",
      "UPDATE approvals SET state = 'approved', decided_by = 'x', expires_at = expires_at + 1 WHERE id = ?",
      [
        ids.pending,
      ],
      /bound identity of an approval is immutable/,
    ],
    [
      "decision rewritten",
      "UPDATE approvals SET state = 'claimed', claimed_at = 1, decided_by = 'mallory' WHERE id = ?",
      [
        ids.approved,
      ],
      /recorded approval fact is immutable/,
    ],
    ["same-state edit", "UPDATE approvals SET decision_note = 'x' WHERE id = ?", [
      ids.pending,
    ], /illegal approval transition/],
    ["row deleted", "DELETE FROM approvals WHERE id = ?", [ids.pending], /never deleted/],
    [
      "inserted as approved",
      `INSERT INTO approvals (id, state, server_id, tool_name, remote_tool_name,
      catalog_digest, binding_id, scope_id, scope_revision, effect, arguments_digest,
      arguments_json, expires_at, created_at, decided_by)
      VALUES ('forged', 'approved', 's', 't', 'r', 'c', 'b', 'sc', 'sr', 'write', 'a', '{}', 9e15, 0, 'x')`,
      [],
      /starts pending/,
    ],
    [
      "approved without the instant of the decision",
      "UPDATE approvals SET state = 'approved', decided_by = 'x' WHERE id = ?",
      [ids.pending],
      /records when it happened/,
    ],
    [
      "an outcome without its instant",
      "UPDATE approvals SET state = 'unknown', outcome_reason = 'x' WHERE id = ?",
      [ids.claimed],
      /records when it happened/,
    ],
  ];
}
