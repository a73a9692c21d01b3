import type { SluiceCode } from "./codes.ts";

/**
 * The one error type sluice throws. Every instance carries a stable, machine-readable `code`;
 * the message is written by sluice and never contains text received from a remote server.
 *
 * @example
 * ```ts
 * import { SluiceError } from "@sluice/mcp";
 * try {
 *   // ...
 * } catch (error) {
 *   if (error instanceof SluiceError && error.code === "json_too_deep") {
 *     // handle the bound
 *   }
 * }
 * ```
 *
 * @category Errors
 */
export class SluiceError<Code extends SluiceCode = SluiceCode> extends Error {
  /** Stable error code from the catalog, for example `json_cycle` or `mcp_schema_unsupported`. */
  readonly code: Code;

  /**
   * Creates an error with a stable code.
   *
   * @param code stable error code
   * @param message human-readable explanation written by sluice (never remote text)
   * @param options the underlying error as `cause`, kept for the host's logs
   */
  constructor(code: Code, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "SluiceError";
    this.code = code;
  }
}
