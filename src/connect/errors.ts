import { SluiceError } from "../errors.ts";

/**
 * Stable codes for a configuration that `connect()` / `connectAll()` refuses.
 *
 * @category Agent developers: connect()
 */
export type ConnectConfigErrorCode =
  /** The configuration is not the documented shape (missing field, wrong type, unknown key). */
  | "connect_config_invalid"
  /** An allowlist entry is not an exact `"server.tool"` (a wildcard, an unknown server, ...). */
  | "connect_allow_invalid"
  /** Two allowed tools map to the same provider-safe local name. */
  | "connect_name_collision"
  /** A `preApproved` or `specs` entry names a tool that is not in the allowlist. */
  | "connect_not_allowed"
  /**
   * `accept()` got a revision this connection did not stage (or already accepted or
   * replaced), or a tool the revision does not add, change or remove.
   */
  | "connect_revision_invalid";

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
