/**
 * The durable approval store on libSQL: an embedded file by default, a libSQL server at scale.
 * This module imports `@libsql/client` (a native driver for files) and is therefore exported
 * only from the separate `@sluice/mcp/libsql` entry.
 *
 * @module
 */
import {
  type Client,
  createClient,
  type InValue,
  type Row,
  type Transaction,
} from "@libsql/client";
import type { JsonObject } from "../identity/mod.ts";
import { configureDurability, type DurabilitySettings, readDurability } from "./durability.ts";
import { ApprovalError } from "./errors.ts";
import {
  assertTransition,
  planClaim,
  sameCall,
  validateDecision,
  validateOutcome,
  validateReconcile,
  validateRequest,
} from "./machine.ts";
import { APPROVAL_COLUMNS, LATEST_SCHEMA_VERSION, MIGRATIONS } from "./migrations.ts";
import type {
  ApprovalEvent,
  ApprovalOutcome,
  ApprovalRecord,
  ApprovalRequest,
  ApprovalState,
  ApprovalStore,
  ApprovalStoreOptions,
  ClaimExpectation,
  ClaimRefusalCode,
  ClaimResult,
  DecisionInput,
  ListFilter,
  ReconcileInput,
} from "./types.ts";

/** Where a store lives: an embedded file, process memory, or a libSQL server. */
export interface StoreLocation {
  /** `file` (embedded, WAL, synchronous=FULL), `memory` (tests; not durable) or `remote`. */
  readonly kind: "file" | "memory" | "remote";
  /** The URL handed to `@libsql/client`. */
  readonly url: string;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * Resolves a store URL. A plain path becomes a `file:` URL; `:memory:` is an in-memory database;
 * `libsql:`, `https:` and `wss:` name a libSQL server (`http:`/`ws:` only on loopback). Anything
 * else, and credentials inside a URL, throw `approval_store_url_invalid` (pass `authToken`).
 *
 * @example
 * ```ts
 * import { resolveStoreUrl } from "@sluice/mcp/libsql";
 * console.assert(resolveStoreUrl("/var/lib/sluice/approvals.db").url === "file:/var/lib/sluice/approvals.db");
 * ```
 */
export function resolveStoreUrl(input: string): StoreLocation {
  if (typeof input !== "string" || input.length === 0) {
    throw new ApprovalError("approval_store_url_invalid", "the store URL is empty");
  }
  if (input === ":memory:" || input === "file::memory:") return { kind: "memory", url: ":memory:" };
  if (input.startsWith("file:")) {
    if (input.length === "file:".length) {
      throw new ApprovalError("approval_store_url_invalid", "the file URL has no path");
    }
    return { kind: "file", url: input };
  }
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(input);
  // A Windows drive letter ("C:\\…") is a path, not a scheme.
  if (scheme && !/^[a-zA-Z]:[\\/]/.test(input)) {
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      throw new ApprovalError("approval_store_url_invalid", "the store URL does not parse");
    }
    if (url.username !== "" || url.password !== "") {
      throw new ApprovalError(
        "approval_store_url_invalid",
        "credentials do not belong in the store URL; pass authToken",
      );
    }
    const protocol = url.protocol;
    if (protocol === "libsql:" || protocol === "https:" || protocol === "wss:") {
      return { kind: "remote", url: input };
    }
    if ((protocol === "http:" || protocol === "ws:") && LOOPBACK_HOSTS.has(url.hostname)) {
      return { kind: "remote", url: input };
    }
    throw new ApprovalError(
      "approval_store_url_invalid",
      `unsupported store URL scheme ${protocol} (use a path, file:, libsql: or https:)`,
    );
  }
  // `?` and `#` would be read as a query or fragment of the file URL.
  if (/[?#]/.test(input)) {
    throw new ApprovalError(
      "approval_store_url_invalid",
      "a plain path with ? or # is ambiguous; pass a file: URL",
    );
  }
  return { kind: "file", url: `file:${input}` };
}

/** Options of {@link LibsqlApprovalStore.open}. */
export interface LibsqlApprovalStoreOptions extends ApprovalStoreOptions {
  /** Token for a libSQL server (`libsql:` / `https:`); never put it in the URL. */
  readonly authToken?: string;
  /** How long a write waits for another process's lock, in milliseconds (default 10 000). */
  readonly busyTimeoutMs?: number;
}

type Args = InValue[];

/**
 * A whole approval row as one JSON text column. The client builds a JS object per column of
 * every row it returns, which costs several times more than the query for a 30-column row; one
 * column keeps a store call close to the cost of its transaction.
 */
const RECORD = `json_object(${
  APPROVAL_COLUMNS.map((column) => `'${column}', ${column}`).join(", ")
}) AS record`;

/** A value returned from a write transaction that must still be thrown after the commit. */
class AfterCommit {
  constructor(readonly error: ApprovalError) {}
}

/**
 * The durable approval store on `@libsql/client`. Every state change is one write transaction
 * (`BEGIN IMMEDIATE`) that also appends to the event log; the claim is one conditional `UPDATE`
 * whose affected-row count decides who got it. Triggers in the schema enforce the same state
 * machine, so a bug or a hand-written `UPDATE` cannot move an approval backwards.
 *
 * On a local file the store runs in WAL mode with `synchronous=FULL` and checks both at open.
 *
 * @example
 * ```ts ignore
 * import { LibsqlApprovalStore } from "@sluice/mcp/libsql";
 * const store = await LibsqlApprovalStore.open("./approvals.db");
 * console.log(await store.list({ state: "pending" }));
 * await store.close();
 * ```
 */
export class LibsqlApprovalStore implements ApprovalStore {
  /** `true` for a file or a server; `false` for `:memory:`. */
  readonly durable: boolean;
  /** Where the store lives. */
  readonly location: StoreLocation;
  readonly #client: Client;
  readonly #now: () => number;
  // One connection per store (pragmas are per connection); calls are queued so a transaction
  // never meets another call of the same store mid-flight.
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(client: Client, location: StoreLocation, now: () => number) {
    this.#client = client;
    this.location = location;
    this.durable = location.kind !== "memory";
    this.#now = now;
  }

  /**
   * Opens (and creates or migrates) a store. Throws `approval_store_not_durable` when a local
   * file does not keep WAL and `synchronous=FULL`, `approval_store_schema_too_new` when the
   * database was written by a newer sluice.
   *
   * @param url a path, `file:` URL, `:memory:`, or a `libsql:` / `https:` server URL
   * @param options `authToken`, `busyTimeoutMs`, and `now` (injectable clock)
   */
  static async open(
    url: string,
    options: LibsqlApprovalStoreOptions = {},
  ): Promise<LibsqlApprovalStore> {
    const location = resolveStoreUrl(url);
    const busyTimeoutMs = options.busyTimeoutMs ?? 10_000;
    const client = createClient({
      url: location.url,
      ...(options.authToken === undefined ? {} : { authToken: options.authToken }),
      intMode: "number",
      concurrency: 1,
      timeout: busyTimeoutMs,
    });
    try {
      if (location.kind === "file") await configureDurability(client, busyTimeoutMs);
      await migrate(client);
    } catch (error) {
      client.close();
      throw error;
    }
    return new LibsqlApprovalStore(client, location, options.now ?? Date.now);
  }

  /** Records a new pending approval, or returns the existing one for the same run and call. */
  async prepare(request: ApprovalRequest): Promise<ApprovalRecord> {
    const argumentsJson = await validateRequest(request);
    return await this.#write(async (tx) => {
      if (request.runId !== undefined) {
        const existing = await selectOne(
          tx,
          `SELECT ${RECORD} FROM approvals WHERE run_id = ? AND call_id = ?`,
          [request.runId, request.callId ?? null],
        );
        if (existing !== undefined) {
          if (!sameCall(existing, request)) {
            return new AfterCommit(
              new ApprovalError(
                "approval_conflict",
                `run and call ids already belong to approval ${existing.id} with other content`,
              ),
            );
          }
          return existing;
        }
      }
      const id = crypto.randomUUID();
      const at = this.#now();
      const inserted = await tx.execute({
        sql: `INSERT INTO approvals (id, state, server_id, tool_name, remote_tool_name,
          catalog_digest, binding_id, scope_id, scope_revision, effect, arguments_digest,
          arguments_json, expires_at, run_id, call_id, created_at)
          VALUES (?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
          RETURNING ${RECORD}`,
        args: [
          id,
          request.serverId,
          request.toolName,
          request.remoteToolName,
          request.catalogDigest,
          request.bindingId,
          request.scopeId,
          request.scopeRevision,
          request.effect,
          request.argumentsDigest,
          argumentsJson,
          request.expiresAt,
          request.runId ?? null,
          request.callId ?? null,
          at,
        ],
      });
      await appendEvent(tx, id, null, "pending", at);
      return rowToRecord(inserted.rows[0]);
    });
  }

  /** One approval, or `undefined`. */
  get(id: string): Promise<ApprovalRecord | undefined> {
    return this.#serial(() =>
      selectOne(this.#client, `SELECT ${RECORD} FROM approvals WHERE id = ?`, [id])
    );
  }

  /** The approval prepared for `callId` of run `runId`, or `undefined`. */
  findCall(runId: string, callId: string): Promise<ApprovalRecord | undefined> {
    return this.#serial(() =>
      selectOne(
        this.#client,
        `SELECT ${RECORD} FROM approvals WHERE run_id = ? AND call_id = ?`,
        [runId, callId],
      )
    );
  }

  /** Approvals, oldest first. */
  list(filter: ListFilter = {}): Promise<ApprovalRecord[]> {
    return this.#serial(async () => {
      const result = filter.state === undefined
        ? await this.#client.execute(`SELECT ${RECORD} FROM approvals ORDER BY rowid`)
        : await this.#client.execute({
          sql: `SELECT ${RECORD} FROM approvals WHERE state = ? ORDER BY rowid`,
          args: [filter.state],
        });
      return result.rows.map(rowToRecord);
    });
  }

  /** A person approves a pending approval; past its expiry it is recorded `expired` instead. */
  approve(id: string, input: DecisionInput): Promise<ApprovalRecord> {
    return this.#decide(id, input, "approved");
  }

  /** A person denies a pending approval. */
  deny(id: string, input: DecisionInput): Promise<ApprovalRecord> {
    return this.#decide(id, input, "denied");
  }

  /**
   * Consumes an approved approval at most once. The claim itself is one conditional `UPDATE`
   * inside a write transaction; zero affected rows means someone else got it or a check failed,
   * and the reason is then read and recorded in the same transaction.
   */
  claim(id: string, expected: ClaimExpectation, now?: number): Promise<ClaimResult> {
    return this.#write(async (tx): Promise<ClaimResult> => {
      const at = now ?? this.#now();
      const claimed = await tx.execute({
        sql: `UPDATE approvals SET state = 'claimed', claimed_at = ?
          WHERE id = ? AND state = 'approved' AND expires_at > ?
          AND server_id = ? AND tool_name = ? AND remote_tool_name = ? AND catalog_digest = ?
          AND binding_id = ? AND scope_id = ? AND scope_revision = ? AND effect = ?
          AND arguments_digest = ?`,
        args: [
          at,
          id,
          at,
          expected.serverId,
          expected.toolName,
          expected.remoteToolName,
          expected.catalogDigest,
          expected.bindingId,
          expected.scopeId,
          expected.scopeRevision,
          expected.effect,
          expected.argumentsDigest,
        ],
      });
      if (claimed.rowsAffected === 1) {
        await appendEvent(tx, id, "approved", "claimed", at);
        return { ok: true, approval: (await this.#read(tx, id))! };
      }
      const record = await this.#read(tx, id);
      if (record === undefined) return { ok: false, code: "approval_not_found" };
      const plan = planClaim(record, expected, at);
      let code: ClaimRefusalCode;
      switch (plan.kind) {
        case "claim":
          // The conditional UPDATE and planClaim disagree: refuse rather than guess.
          throw new ApprovalError(
            "approval_invalid_transition",
            `approval ${id} could not be claimed`,
          );
        case "refuse":
          return { ok: false, code: plan.code, approval: record };
        case "expire":
          code = "approval_expired";
          await this.#must(
            this.#move(tx, id, record.state, "expired", at, "", [], undefined, code),
          );
          break;
        case "consume":
          code = plan.code;
          await this.#must(
            this.#move(tx, id, "approved", "claimed", at, "claimed_at = ?", [at], undefined, code),
          );
          await this.#must(this.#move(
            tx,
            id,
            "claimed",
            "not_started",
            at,
            "refusal_code = ?, refused_at = ?, outcome_reason = ?, outcome_at = ?",
            [code, at, code, at],
            undefined,
            code,
          ));
          break;
      }
      return { ok: false, code, approval: (await this.#read(tx, id))! };
    });
  }

  /** Records the outcome of a claimed approval. */
  async recordOutcome(id: string, outcome: ApprovalOutcome): Promise<ApprovalRecord> {
    validateOutcome(outcome);
    return await this.#write(async (tx) => {
      const at = this.#now();
      const moved = outcome.outcome === "committed"
        ? await this.#move(
          tx,
          id,
          "claimed",
          "committed",
          at,
          "result_digest = ?, receipt_at = ?, outcome_at = ?",
          [outcome.receipt.resultDigest, outcome.receipt.at, at],
          undefined,
          outcome.receipt.resultDigest,
        )
        : await this.#move(
          tx,
          id,
          "claimed",
          outcome.outcome,
          at,
          "outcome_reason = ?, outcome_at = ?",
          [outcome.reason, at],
          undefined,
          outcome.reason,
        );
      return moved ?? await this.#refuse(tx, id, outcome.outcome);
    });
  }

  /** A person reconciles an `unknown` outcome with evidence. */
  async reconcile(id: string, input: ReconcileInput): Promise<ApprovalRecord> {
    validateReconcile(input);
    return await this.#write(async (tx) => {
      const at = this.#now();
      const moved = await this.#move(
        tx,
        id,
        "unknown",
        "reconciled",
        at,
        "reconciled_outcome = ?, reconciled_evidence = ?, reconciled_by = ?, reconciled_at = ?",
        [input.outcome, input.evidence, input.by, at],
        input.by,
        `${input.outcome}: ${input.evidence}`,
      );
      return moved ?? await this.#refuse(tx, id, "reconciled");
    });
  }

  /** The approval's history, oldest first. */
  events(id: string): Promise<ApprovalEvent[]> {
    return this.#serial(async () => {
      const result = await this.#client.execute({
        sql: "SELECT * FROM approval_events WHERE approval_id = ? ORDER BY seq",
        args: [id],
      });
      return result.rows.map(toEvent);
    });
  }

  /**
   * Reads the durability settings of the store's connection (journal mode, synchronous level,
   * busy timeout), for operators and tests. A libSQL server reports its own values or none.
   */
  durability(): Promise<DurabilitySettings> {
    return this.#serial(() => readDurability(this.#client));
  }

  /** Closes the database after queued calls finish; later calls throw `approval_store_closed`. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#queue.catch(() => undefined);
    this.#client.close();
  }

  async #decide(
    id: string,
    input: DecisionInput,
    to: "approved" | "denied",
  ): Promise<ApprovalRecord> {
    validateDecision(input);
    return await this.#write(async (tx) => {
      const at = this.#now();
      const moved = await this.#move(
        tx,
        id,
        "pending",
        to,
        at,
        "decided_by = ?, decided_at = ?, decision_note = ?",
        [input.by, at, input.note ?? null],
        input.by,
        input.note,
        { sql: "expires_at > ?", args: [at] },
      );
      if (moved !== undefined) return moved;
      const record = await this.#refuse(tx, id, to);
      // Legal but not applied: the approval is pending and past its expiry. Record that.
      await this.#must(
        this.#move(tx, id, record.state, "expired", at, "", [], undefined, "approval_expired"),
      );
      return new AfterCommit(
        new ApprovalError("approval_expired", `approval ${id} expired before the decision`),
      );
    });
  }

  /**
   * One checked transition: the pair is checked in code, then one `UPDATE` guarded by the
   * current state (and `extra`), then one event. Returns the new record, or `undefined` when
   * the row was not in `from` (or `extra` did not hold) and nothing changed.
   */
  async #move(
    tx: Transaction,
    id: string,
    from: ApprovalState,
    to: ApprovalState,
    at: number,
    setSql: string,
    setArgs: Args,
    by?: string,
    detail?: string,
    extra?: { sql: string; args: Args },
  ): Promise<ApprovalRecord | undefined> {
    assertTransition(id, from, to);
    const result = await tx.execute({
      sql: `UPDATE approvals SET state = ?${setSql === "" ? "" : `, ${setSql}`}
        WHERE id = ? AND state = ?${extra === undefined ? "" : ` AND ${extra.sql}`}
        RETURNING ${RECORD}`,
      args: [to, ...setArgs, id, from, ...(extra?.args ?? [])],
    });
    // With RETURNING, libSQL reports rowsAffected as 0; the returned rows are the changed rows.
    if (result.rows.length !== 1) return undefined;
    await appendEvent(tx, id, from, to, at, by, detail);
    return rowToRecord(result.rows[0]);
  }

  /** For a transition that had to happen: throws if it did not. */
  async #must(moved: Promise<ApprovalRecord | undefined>): Promise<ApprovalRecord> {
    const record = await moved;
    if (record === undefined) {
      throw new ApprovalError("approval_invalid_transition", "the approval changed underneath");
    }
    return record;
  }

  /**
   * Explains why a guarded move did not apply: `approval_not_found`, or
   * `approval_invalid_transition` from the current state. Returns the record when the move would
   * have been legal (the caller then knows an extra condition failed).
   */
  async #refuse(tx: Transaction, id: string, to: ApprovalState): Promise<ApprovalRecord> {
    const record = await this.#read(tx, id);
    if (record === undefined) throw new ApprovalError("approval_not_found", `no approval ${id}`);
    assertTransition(id, record.state, to);
    return record;
  }

  #read(tx: Transaction, id: string): Promise<ApprovalRecord | undefined> {
    return selectOne(tx, `SELECT ${RECORD} FROM approvals WHERE id = ?`, [id]);
  }

  /** Runs `body` in one `BEGIN IMMEDIATE` transaction; commits unless it throws. */
  async #write<T>(body: (tx: Transaction) => Promise<T | AfterCommit>): Promise<T> {
    const result = await this.#serial(async () => {
      const tx = await this.#client.transaction("write");
      try {
        const value = await body(tx);
        await tx.commit();
        return value;
      } finally {
        tx.close();
      }
    });
    if (result instanceof AfterCommit) throw result.error;
    return result;
  }

  #serial<T>(step: () => Promise<T>): Promise<T> {
    if (this.#closed) {
      return Promise.reject(new ApprovalError("approval_store_closed", "the store is closed"));
    }
    const run = this.#queue.then(step, step);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

/** Applies missing migrations in one write transaction; refuses a newer database. */
async function migrate(client: Client): Promise<void> {
  const tx = await client.transaction("write");
  try {
    await tx.execute(
      `CREATE TABLE IF NOT EXISTS schema_version (
        version INTEGER PRIMARY KEY NOT NULL, applied_at INTEGER NOT NULL) STRICT`,
    );
    const current = Number(
      (await tx.execute("SELECT coalesce(max(version), 0) FROM schema_version")).rows[0][0],
    );
    if (current > LATEST_SCHEMA_VERSION) {
      throw new ApprovalError(
        "approval_store_schema_too_new",
        `the approval database has schema version ${current}; this sluice knows up to ${LATEST_SCHEMA_VERSION}`,
      );
    }
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      for (const statement of migration.statements) await tx.execute(statement);
      await tx.execute({
        sql: "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
        args: [migration.version, Date.now()],
      });
    }
    await tx.commit();
  } finally {
    tx.close();
  }
}

async function appendEvent(
  tx: Transaction,
  approvalId: string,
  from: ApprovalState | null,
  to: ApprovalState,
  at: number,
  by?: string,
  detail?: string,
): Promise<void> {
  await tx.execute({
    sql: `INSERT INTO approval_events (approval_id, seq, from_state, to_state, at, by, detail)
      VALUES (?1, (SELECT coalesce(max(seq), 0) + 1 FROM approval_events WHERE approval_id = ?1),
        ?2, ?3, ?4, ?5, ?6)`,
    args: [approvalId, from, to, at, by ?? null, detail ?? null],
  });
}

async function selectOne(
  executor: Pick<Client, "execute">,
  sql: string,
  args: Args,
): Promise<ApprovalRecord | undefined> {
  const row = (await executor.execute({ sql, args })).rows[0];
  return row === undefined ? undefined : rowToRecord(row);
}

type Fields = Readonly<Record<string, unknown>>;

function rowToRecord(row: Row): ApprovalRecord {
  return toRecord(JSON.parse(String(row.record)) as Fields);
}

function text(row: Fields, column: string): string {
  return String(row[column]);
}

function optionalText(row: Fields, column: string): string | undefined {
  const value = row[column];
  return value === null || value === undefined ? undefined : String(value);
}

function optionalNumber(row: Fields, column: string): number | undefined {
  const value = row[column];
  return value === null || value === undefined ? undefined : Number(value);
}

function toRecord(row: Fields): ApprovalRecord {
  const decidedBy = optionalText(row, "decided_by");
  const state = text(row, "state") as ApprovalState;
  const note = optionalText(row, "decision_note");
  const runId = optionalText(row, "run_id");
  const claimedAt = optionalNumber(row, "claimed_at");
  const refusalCode = optionalText(row, "refusal_code");
  const resultDigest = optionalText(row, "result_digest");
  const outcomeReason = optionalText(row, "outcome_reason");
  const outcomeAt = optionalNumber(row, "outcome_at");
  const reconciledOutcome = optionalText(row, "reconciled_outcome");
  return {
    id: text(row, "id"),
    state,
    createdAt: Number(row.created_at),
    serverId: text(row, "server_id"),
    toolName: text(row, "tool_name"),
    remoteToolName: text(row, "remote_tool_name"),
    catalogDigest: text(row, "catalog_digest"),
    bindingId: text(row, "binding_id"),
    scopeId: text(row, "scope_id"),
    scopeRevision: text(row, "scope_revision"),
    effect: text(row, "effect") as ApprovalRecord["effect"],
    argumentsDigest: text(row, "arguments_digest"),
    arguments: JSON.parse(text(row, "arguments_json")) as JsonObject,
    expiresAt: Number(row.expires_at),
    ...(runId === undefined ? {} : { runId, callId: text(row, "call_id") }),
    ...(decidedBy === undefined ? {} : {
      decision: {
        // A decision is recorded only by approve (approved, then maybe later states) or deny.
        decision: state === "denied" ? "denied" : "approved",
        by: decidedBy,
        at: Number(row.decided_at),
        ...(note === undefined ? {} : { note }),
      },
    }),
    ...(claimedAt === undefined ? {} : { claimedAt }),
    ...(refusalCode === undefined
      ? {}
      : { refusal: { code: refusalCode as ClaimRefusalCode, at: Number(row.refused_at) } }),
    ...(resultDigest === undefined
      ? {}
      : { receipt: { resultDigest, at: Number(row.receipt_at) } }),
    ...(outcomeReason === undefined ? {} : { outcomeReason }),
    ...(outcomeAt === undefined ? {} : { outcomeAt }),
    ...(reconciledOutcome === undefined ? {} : {
      reconciliation: {
        outcome: reconciledOutcome as "committed" | "not_started",
        evidence: text(row, "reconciled_evidence"),
        by: text(row, "reconciled_by"),
        at: Number(row.reconciled_at),
      },
    }),
  };
}

function toEvent(row: Row): ApprovalEvent {
  const by = optionalText(row, "by");
  const detail = optionalText(row, "detail");
  const from = optionalText(row, "from_state");
  return {
    seq: Number(row.seq),
    approvalId: text(row, "approval_id"),
    from: (from ?? null) as ApprovalState | null,
    to: text(row, "to_state") as ApprovalState,
    at: Number(row.at),
    ...(by === undefined ? {} : { by }),
    ...(detail === undefined ? {} : { detail }),
  };
}
