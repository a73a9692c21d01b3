/**
 * The codes of the OAuth client, and the one error class that carries them.
 *
 * @module
 */
import { SluiceError } from "../errors.ts";
import type { CodeOf } from "../codes.ts";

/**
 * Stable codes for everything the OAuth client refuses or fails on.
 *
 * @category OAuth
 */
export type AuthErrorCode = CodeOf<"auth">;

/**
 * Thrown by the OAuth client. The message is sluice text: it never holds a token, a code or a
 * client secret, and remote text only as the scope names of an `insufficient_scope` answer
 * (restricted to the characters RFC 6749 allows in a scope).
 *
 * @example
 * ```ts
 * import { AuthError } from "@sluice/mcp";
 * const error = new AuthError("auth_issuer_mismatch", "the issuer differs");
 * console.log(error.code); // "auth_issuer_mismatch"
 * ```
 *
 * @category OAuth
 */
export class AuthError extends SluiceError<AuthErrorCode> {
  /** For `auth_metadata_refused`: the transport code the URL would have met. */
  readonly reason?: string;

  /**
   * Creates an OAuth error.
   *
   * @param code stable error code
   * @param message fixed explanation written by sluice
   * @param reason the transport code behind a refused metadata URL
   */
  constructor(code: AuthErrorCode, message: string, reason?: string) {
    super(code, message);
    this.name = "AuthError";
    if (reason !== undefined) this.reason = reason;
  }
}

/**
 * Finds an OAuth code on an error or along its `cause` chain.
 *
 * @example
 * ```ts
 * import { AuthError, authErrorCode } from "@sluice/mcp";
 * authErrorCode(new Error("x", { cause: new AuthError("auth_unauthorized", "no") }));
 * // "auth_unauthorized"
 * ```
 *
 * @param error any thrown value
 * @returns the code, or `undefined` when no {@link AuthError} is in the chain
 *
 * @category OAuth
 */
export function authErrorCode(error: unknown): AuthErrorCode | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    if (current instanceof AuthError) return current.code;
    current = typeof current === "object" ? (current as { cause?: unknown }).cause : undefined;
  }
  return undefined;
}
