/**
 * The error type and codes of `sluice serve`: a configuration refused when the server is built,
 * and the refusals its responses name.
 *
 * @module
 */
import { SluiceError } from "../errors.ts";
import type { CodeOf } from "../codes.ts";

/**
 * Stable codes of `sluice serve`: thrown for a bad configuration, or named in a refused
 * response (HTTP status, or a tool result for a busy client).
 *
 * @category sluice serve
 */
export type ServeErrorCode = CodeOf<"serve">;

/**
 * Thrown by `serveToolkit` and `serve` for a configuration they refuse. The message is
 * sluice's own text and never holds a token.
 *
 * @example
 * ```ts
 * import { ServeError } from "@sluice/mcp/serve";
 * const error = new ServeError("serve_config_invalid", "no clients");
 * console.assert(error.code === "serve_config_invalid");
 * ```
 *
 * @category sluice serve
 */
export class ServeError extends SluiceError<ServeErrorCode> {
  /**
   * Creates the error.
   *
   * @param code stable error code
   * @param message explanation written by sluice
   */
  constructor(code: ServeErrorCode, message: string) {
    super(code, message);
    this.name = "ServeError";
  }
}
