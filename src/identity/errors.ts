import { SluiceError } from "../errors.ts";
import type { CodeOf } from "../codes.ts";

/**
 * Stable codes for values that identity refuses.
 *
 * @category Identity
 */
export type JsonErrorCode = CodeOf<"identity">;

/**
 * Thrown when a value is not plain JSON or exceeds a {@link JsonLimits} bound.
 * `path` is the JSON Pointer of the offending member; the value itself is never included.
 *
 * @category Identity
 */
export class JsonValueError extends SluiceError<JsonErrorCode> {
  /** JSON Pointer (RFC 6901) of the offending member, `""` for the root. */
  readonly path: string;

  /**
   * Creates the error for one refused member.
   *
   * @param code why the value was refused
   * @param path JSON Pointer of the offending member
   * @param message explanation written by sluice, without the path
   */
  constructor(code: JsonErrorCode, path: string, message: string) {
    // The path is not in the message: its keys may be remote text (see SluiceError).
    super(code, message);
    this.name = "JsonValueError";
    this.path = path;
  }
}
