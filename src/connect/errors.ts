import { SluiceError } from "../errors.ts";
import type { CodeIn, SluiceCode } from "../codes.ts";

/**
 * Stable codes for a configuration that `connect()` / `connectAll()` refuses.
 *
 * @category Agent developers: connect()
 */
export type ConnectConfigErrorCode = CodeIn<"ConnectConfigErrorCode">;

/**
 * Thrown by `connect()` / `connectAll()` for a configuration they refuse. The message is
 * sluice's own text and names only what the owner wrote.
 *
 * @example
 * ```ts
 * import { ConnectConfigError } from "@sluice/mcp";
 * const error = new ConnectConfigError("connect_allow_invalid", "wildcards are not allowed");
 * console.log(error.code);
 * ```
 *
 * @category Agent developers: connect()
 */
export class ConnectConfigError extends SluiceError<ConnectConfigErrorCode> {
  /**
   * Creates a configuration error.
   *
   * @param code stable code
   * @param message explanation written by sluice
   */
  constructor(code: ConnectConfigErrorCode, message: string) {
    super(code, message);
    this.name = "ConnectConfigError";
  }
}

/**
 * One server that could not be set up, as {@link ConnectError} lists it.
 *
 * @category Agent developers: connect()
 */
export interface ServerFailure {
  /** The server id. */
  readonly server: string;
  /** Its failure code (`transport_failed`, `transport_permission_denied`, ...). */
  readonly code: SluiceCode;
  /** sluice's explanation, naming the setting to change (as `report()` has it). */
  readonly reason: string;
}

/**
 * Thrown (rejected) by `connect()` when its server cannot be reached or is refused, by
 * `connectAll()` when no server can be set up (or any cannot, with `requireAll`), and by
 * `connection.reconnect(id)` when the server still cannot be. `code` is the (first) failed
 * server's code, so `codeOf(error)` is `transport_failed`, `auth_authorization_required`, ...;
 * `failures` lists every failed server. The message is sluice's own text: the server ids and
 * origins the host configured, the codes and what to change; never text of a server. Every
 * session the call opened is closed before it rejects.
 *
 * @example
 * ```ts
 * import { ConnectError } from "@sluice/mcp";
 * const error = new ConnectError(
 *   [{ server: "docs", code: "transport_failed", reason: "nothing answered" }],
 *   'server "docs": transport_failed: nothing answered',
 * );
 * console.log(error.code, error.server); // transport_failed docs
 * ```
 *
 * @category Agent developers: connect()
 */
export class ConnectError extends SluiceError {
  /** The id of the first failed server (configuration order). */
  readonly server: string;
  /** Every failed server, in configuration order. */
  readonly failures: readonly ServerFailure[];

  /**
   * Creates the error.
   *
   * @param failures the failed servers (at least one)
   * @param message explanation written by sluice
   * @param options the first server's underlying error as `cause`, for the host's logs
   */
  constructor(failures: readonly ServerFailure[], message: string, options?: ErrorOptions) {
    super(failures[0]?.code ?? "mcp_transport_error", message, options);
    this.name = "ConnectError";
    this.server = failures[0]?.server ?? "";
    this.failures = Object.freeze(failures.map((failure) => Object.freeze({ ...failure })));
  }
}
