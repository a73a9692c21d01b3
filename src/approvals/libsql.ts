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
  TERMINAL_STATES,
  validateDecision,
  validateOutcome,
  validateReconcile,
  validateRequest,
} from "./machine.ts";
import {
  APPROVAL_COLUMNS,
  IDENTITY_COLUMNS,
  LATEST_SCHEMA_VERSION,
  MIGRATIONS,
} from "./migrations.ts";
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
 * A whole approval row as one JSON text column, its values in {@link APPROVAL_COLUMNS} order.
 * The client builds a JS object per column of every row it returns, which costs several times
 * more than the query for a 30-column row; one column keeps a store call close to the cost of
 * its transaction. An array rather than an object: the client compiles every statement anew,
 * and `json_array` of 30 columns compiles in a fraction of the time of `json_object` with 30
 * key literals (measured with the native driver: ~10-15 us against ~30-60 us per compile).
 */
const RECORD = `json_array(${APPROVAL_COLUMNS.join(", ")}) AS record`;

/** Columns a new approval inserts; the rest are recorded facts, empty at first. */
const INSERT_COLUMNS: readonly string[] = IDENTITY_COLUMNS.toSpliced(1, 0, "state");

const INSERT_APPROVAL = `INSERT INTO approvals (${INSERT_COLUMNS.join(", ")})
  VALUES (${INSERT_COLUMNS.map(() => "?").join(", ")})
  ON CONFLICT (run_id, call_id) WHERE run_id IS NOT NULL DO NOTHING`;

/** Every recorded-fact column, empty. */
const NO_FACTS: Readonly<Record<string, InValue>> = Object.fromEntries(
  APPROVAL_COLUMNS.filter((column) => !INSERT_COLUMNS.includes(column)).map((c) => [c, null]),
);

/**
 * A driver failure as an {@link ApprovalError}: `approval_store_busy` when another connection
 * kept the database locked past the busy timeout, `approval_store_error` otherwise. The message
 * names only the driver's code (`SQLITE_IOERR`, ...), never its text; the original is `cause`.
 */
function storeFailure(error: unknown, doing: string): ApprovalError {
  if (error instanceof ApprovalError) return error;
  const driverCode = typeof (error as { code?: unknown })?.code === "string"
    ? (error as { code: string }).code
    : undefined;
  const code = driverCode !== undefined && /^SQLITE_BUSY|^SQLITE_LOCKED/.test(driverCode)
    ? "approval_store_busy"
    : "approval_store_error";
  const wrapped = new ApprovalError(
    code,
    code === "approval_store_busy"
      ? `the approval database stayed locked by another connection while ${doing}`
      : `the approval database failed while ${doing}` +
        (driverCode !== undefined && /^[A-Z0-9_]{1,64}$/.test(driverCode)
          ? ` (${driverCode})`
          : ""),
  );
  Object.defineProperty(wrapped, "cause", { value: error, enumerable: false });
  return wrapped;
}

/** How many rows a store remembers for its next transition (see `#move`). */
const SEEN_LIMIT = 1024;

/** A value returned from a write transaction that must still be thrown after the commit. */
class AfterCommit {
  readonly error: ApprovalError;
  constructor(error: ApprovalError) {
    this.error = error;
  }
}

/**
 * The durable approval store on `@libsql/client`. Every state change is one write transaction
 * (`BEGIN IMMEDIATE`) in which a trigger appends to the event log; the claim is one conditional
 * `UPDATE` whose affected-row count decides who got it. Triggers in the schema enforce the same
 * state machine, so a bug or a hand-written `UPDATE` cannot move an approval backwards.
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
  #client: Client;
  /** Opens a fresh, configured connection (see {@link #serial}). */
  readonly #connect: () => Promise<Client>;
  /** The last call failed in the driver; the connection is replaced before the next one. */
  #broken = false;
  readonly #now: () => number;
  // One connection per store (pragmas are per connection); calls are queued so a transaction
  // never meets another call of the same store mid-flight.
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;
  /** Rows this store last wrote, by id; see {@link #move}. */
  readonly #seen = new Map<string, Fields>();

  private constructor(
    client: Client,
    connect: () => Promise<Client>,
    location: StoreLocation,
    now: () => number,
  ) {
    this.#client = client;
    this.#connect = connect;
    this.location = location;
    this.durable = location.kind !== "memory";
    this.#now = now;
  }

  /**
   * Opens (and creates or migrates) a store. Throws `approval_store_not_durable` when a local
   * file does not keep WAL and `synchronous=FULL`, `approval_store_schema_too_new` when the
   * database was written by a newer sluice, `approval_store_error` when the driver cannot open
   * it.
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
    const connect = async () => {
      let client: Client;
      try {
        client = createClient({
          url: location.url,
          ...(options.authToken === undefined ? {} : { authToken: options.authToken }),
          intMode: "number",
          concurrency: 1,
          timeout: busyTimeoutMs,
        });
      } catch (error) {
        throw storeFailure(error, "opening it");
      }
      try {
        if (location.kind === "file") await configureDurability(client, busyTimeoutMs);
        return client;
      } catch (error) {
        client.close();
        throw storeFailure(error, "opening it");
      }
    };
    const client = await connect();
    try {
      await migrate(client);
    } catch (error) {
      client.close();
      throw storeFailure(error, "opening it");
    }
    return new LibsqlApprovalStore(client, connect, location, options.now ?? Date.now);
  }

  /** Records a new pending approval, or returns the existing one for the same run and call. */
  async prepare(request: ApprovalRequest): Promise<ApprovalRecord> {
    const argumentsJson = await validateRequest(request);
    return await this.#write(async (tx) => {
      const id = crypto.randomUUID();
      const at = this.#now();
      const fields: Record<string, InValue> = {
        ...NO_FACTS,
        id,
        state: "pending",
        server_id: request.serverId,
        tool_name: request.toolName,
        remote_tool_name: request.remoteToolName,
        catalog_digest: request.catalogDigest,
        binding_id: request.bindingId,
        scope_id: request.scopeId,
        scope_revision: request.scopeRevision,
        effect: request.effect,
        arguments_digest: request.argumentsDigest,
        arguments_json: argumentsJson,
        expires_at: request.expiresAt,
        run_id: request.runId ?? null,
        call_id: request.callId ?? null,
        created_at: at,
      };
      // One statement inserts, or finds that the run and call already have an approval.
      const inserted = await tx.execute({
        sql: INSERT_APPROVAL,
        args: INSERT_COLUMNS.map((column) => fields[column]),
      });
      if (inserted.rowsAffected === 0) {
        const existing = await selectOne(
          tx,
          `SELECT ${RECORD} FROM approvals WHERE run_id = ? AND call_id = ?`,
          [request.runId ?? null, request.callId ?? null],
        );
        if (existing === undefined) {
          throw new ApprovalError("approval_invalid_transition", "the approval was not inserted");
        }
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
      // The row is exactly what was inserted (triggers only refuse), so the record is built
      // from the same values instead of being read back.
      return this.#remember(fields);
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
      const claimed = await this.#move(tx, id, "approved", "claimed", { claimed_at: at }, {
        sql: `expires_at > ? AND server_id = ? AND tool_name = ? AND remote_tool_name = ?
            AND catalog_digest = ? AND binding_id = ? AND scope_id = ? AND scope_revision = ?
            AND effect = ? AND arguments_digest = ?`,
        args: [
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
      if (claimed !== undefined) return { ok: true, approval: claimed };
      const record = await this.#read(tx, id);
      if (record === undefined) return { ok: false, code: "approval_not_found" };
      const plan = planClaim(record, expected, at);
      switch (plan.kind) {
        case "claim":
          // The conditional UPDATE and planClaim disagree: refuse rather than guess.
          throw new ApprovalError(
            "approval_invalid_transition",
            `approval ${id} could not be claimed`,
          );
        case "refuse":
          return { ok: false, code: plan.code, approval: record };
        case "expire": {
          const approval = await this.#must(
            this.#move(tx, id, record.state, "expired", { expired_at: at }),
          );
          return { ok: false, code: "approval_expired", approval };
        }
        case "consume": {
          const code = plan.code;
          // The refusal is recorded with the claim, so the claim's event names it too.
          await this.#must(this.#move(tx, id, "approved", "claimed", {
            claimed_at: at,
            refusal_code: code,
            refused_at: at,
          }));
          const approval = await this.#must(this.#move(tx, id, "claimed", "not_started", {
            outcome_reason: code,
            outcome_at: at,
          }));
          return { ok: false, code, approval };
        }
      }
    });
  }

  /** Records the outcome of a claimed approval. */
  async recordOutcome(id: string, outcome: ApprovalOutcome): Promise<ApprovalRecord> {
    validateOutcome(outcome);
    return await this.#write(async (tx) => {
      const at = this.#now();
      const moved = outcome.outcome === "committed"
        ? await this.#move(tx, id, "claimed", "committed", {
          result_digest: outcome.receipt.resultDigest,
          receipt_at: outcome.receipt.at,
          outcome_at: at,
        })
        : await this.#move(tx, id, "claimed", outcome.outcome, {
          outcome_reason: outcome.reason,
          outcome_at: at,
        });
      return moved ?? await this.#refuse(tx, id, outcome.outcome);
    });
  }

  /** A person reconciles an `unknown` outcome with evidence. */
  async reconcile(id: string, input: ReconcileInput): Promise<ApprovalRecord> {
    validateReconcile(input);
    return await this.#write(async (tx) => {
      const at = this.#now();
      const moved = await this.#move(tx, id, "unknown", "reconciled", {
        reconciled_outcome: input.outcome,
        reconciled_evidence: input.evidence,
        reconciled_by: input.by,
        reconciled_at: at,
      });
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
      const moved = await this.#move(tx, id, "pending", to, {
        decided_by: input.by,
        decided_at: at,
        decision_note: input.note ?? null,
      }, { sql: "expires_at > ?", args: [at] });
      if (moved !== undefined) return moved;
      const record = await this.#refuse(tx, id, to);
      // Legal but not applied: the approval is pending and past its expiry. Record that.
      await this.#must(
        this.#move(tx, id, record.state, "expired", { expired_at: at }),
      );
      return new AfterCommit(
        new ApprovalError("approval_expired", `approval ${id} expired before the decision`),
      );
    });
  }

  /**
   * One checked transition: the pair is checked in code, then one `UPDATE` guarded by the
   * current state (and `extra`); the schema's trigger appends the event. Returns the new record, or `undefined` when
   * the row was not in `from` (or `extra` did not hold) and nothing changed.
   *
   * The new record is the remembered one plus `changes` when this store last saw the row in
   * `from`; otherwise it is read back in the same transaction. That is exact, not a guess: the
   * triggers make every applied `UPDATE` move the state forward to a state never held before
   * and forbid changing identity columns or recorded facts, so a row still in `from` (which the
   * `UPDATE` just checked) is unchanged since it was seen in `from`.
   */
  async #move(
    tx: Transaction,
    id: string,
    from: ApprovalState,
    to: ApprovalState,
    changes: Readonly<Record<string, InValue>>,
    extra?: { sql: string; args: Args },
  ): Promise<ApprovalRecord | undefined> {
    assertTransition(id, from, to);
    const columns = Object.keys(changes);
    const result = await tx.execute({
      sql: `UPDATE approvals SET state = ?${columns.map((column) => `, ${column} = ?`).join("")}
        WHERE id = ? AND state = ?${extra === undefined ? "" : ` AND ${extra.sql}`}`,
      args: [to, ...Object.values(changes), id, from, ...(extra?.args ?? [])],
    });
    if (result.rowsAffected !== 1) return undefined;
    const seen = this.#seen.get(id);
    const fields = seen?.state === from
      ? { ...seen, ...changes, state: to }
      : await selectFields(tx, `SELECT ${RECORD} FROM approvals WHERE id = ?`, [id]);
    if (fields === undefined) throw new ApprovalError("approval_not_found", `no approval ${id}`);
    return this.#remember(fields);
  }

  /**
   * Keeps the fields of a row this store wrote, for the next transition of the same approval
   * (see {@link #move}); forgets terminal rows and, past a bound, the oldest entries.
   */
  #remember(fields: Fields): ApprovalRecord {
    const id = String(fields.id);
    this.#seen.delete(id);
    if (!TERMINAL_STATES.includes(fields.state as ApprovalState)) {
      this.#seen.set(id, fields);
      if (this.#seen.size > SEEN_LIMIT) this.#seen.delete(this.#seen.keys().next().value!);
    }
    return toRecord(fields);
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
      } catch (error) {
        // Rows remembered inside a transaction that did not commit were never written.
        this.#seen.clear();
        throw error;
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
    const guarded = async () => {
      if (this.#broken) {
        this.#client = await this.#connect();
        this.#broken = false;
      }
      try {
        return await step();
      } catch (error) {
        if (!(error instanceof ApprovalError) && this.location.kind !== "memory") {
          // A statement the driver left unfinished (after SQLITE_BUSY, say) keeps every later
          // COMMIT on this connection failing, so the connection is closed and replaced. An
          // in-memory database lives only on its connection and is kept.
          this.#broken = true;
          this.#client.close();
        }
        throw storeFailure(error, "reading or writing an approval");
      }
    };
    const run = this.#queue.then(guarded, guarded);
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

async function selectFields(
  executor: Pick<Client, "execute">,
  sql: string,
  args: Args,
): Promise<Fields | undefined> {
  const row = (await executor.execute({ sql, args })).rows[0];
  return row === undefined ? undefined : rowToFields(row);
}

async function selectOne(
  executor: Pick<Client, "execute">,
  sql: string,
  args: Args,
): Promise<ApprovalRecord | undefined> {
  const fields = await selectFields(executor, sql, args);
  return fields === undefined ? undefined : toRecord(fields);
}

type Fields = Readonly<Record<string, unknown>>;

function rowToFields(row: Row): Fields {
  const values = JSON.parse(String(row.record)) as unknown[];
  const fields: Record<string, unknown> = {};
  for (let index = 0; index < APPROVAL_COLUMNS.length; index++) {
    fields[APPROVAL_COLUMNS[index]] = values[index];
  }
  return fields;
}

function rowToRecord(row: Row): ApprovalRecord {
  return toRecord(rowToFields(row));
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
