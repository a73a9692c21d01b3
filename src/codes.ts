/**
 * Every code sluice returns in an envelope or throws, grouped by pipeline stage, each with a
 * one-line meaning: the one place a code is written (one data module per stage in `src/codes/`,
 * assembled here). Every code union of the modules is derived from this catalog ({@link CodeOf}
 * by stage, {@link CodeIn} for a union that is not a whole stage), and the error reference
 * (`docs/errors.md`) is tested against it (`tests/codes_test.ts`).
 *
 * @module
 */
import { SluiceError } from "./errors.ts";
import type { CodeEntry, CodeGroup, CodeStage } from "./codes/entry.ts";
import { INSTALL_CODES } from "./codes/install.ts";
import { IDENTITY_CODES } from "./codes/identity.ts";
import { SCHEMA_CODES } from "./codes/schema.ts";
import { SCREEN_CODES } from "./codes/screen.ts";
import { TRANSPORT_CODES } from "./codes/transport.ts";
import { AUTH_CODES } from "./codes/auth.ts";
import { SESSION_CODES } from "./codes/session.ts";
import { DISCOVERY_CODES } from "./codes/discovery.ts";
import { CALL_CODES } from "./codes/call.ts";
import { GATE_CODES } from "./codes/gate.ts";
import { APPROVALS_CODES } from "./codes/approvals.ts";
import { CONNECT_CODES } from "./codes/connect.ts";
import { INBOX_CODES } from "./codes/inbox.ts";
import { SERVE_CODES } from "./codes/serve.ts";
import { CLI_CODES } from "./codes/cli.ts";

export type { CodeEntry, CodeGroup, CodeStage, StageCodes } from "./codes/entry.ts";
// Public because the type of CODES names them (a public type may not be built on private ones).
export {
  APPROVALS_CODES,
  AUTH_CODES,
  CALL_CODES,
  CLI_CODES,
  CONNECT_CODES,
  DISCOVERY_CODES,
  GATE_CODES,
  IDENTITY_CODES,
  INBOX_CODES,
  INSTALL_CODES,
  SCHEMA_CODES,
  SCREEN_CODES,
  SERVE_CODES,
  SESSION_CODES,
  TRANSPORT_CODES,
};

/**
 * Every code, with its stage, the unions beyond its stage that hold it, and what it means.
 * Read-only: the code unions of every module are derived from it.
 *
 * @example
 * ```ts
 * import { CODES } from "@sluice/mcp";
 * console.log(CODES.json_cycle.meaning); // "A value contains itself."
 * ```
 *
 * @category Errors
 */
// Pure: a bundle that never reads the catalog (a Worker's) drops it, 17 KB minified; a bare
// spread would be kept, since spreading may run getters.
export const CODES:
  & typeof INSTALL_CODES
  & typeof IDENTITY_CODES
  & typeof SCHEMA_CODES
  & typeof SCREEN_CODES
  & typeof TRANSPORT_CODES
  & typeof AUTH_CODES
  & typeof SESSION_CODES
  & typeof DISCOVERY_CODES
  & typeof CALL_CODES
  & typeof GATE_CODES
  & typeof APPROVALS_CODES
  & typeof CONNECT_CODES
  & typeof INBOX_CODES
  & typeof SERVE_CODES
  & typeof CLI_CODES = /* @__PURE__ */ (() => ({
    ...INSTALL_CODES,
    ...IDENTITY_CODES,
    ...SCHEMA_CODES,
    ...SCREEN_CODES,
    ...TRANSPORT_CODES,
    ...AUTH_CODES,
    ...SESSION_CODES,
    ...DISCOVERY_CODES,
    ...CALL_CODES,
    ...GATE_CODES,
    ...APPROVALS_CODES,
    ...CONNECT_CODES,
    ...INBOX_CODES,
    ...SERVE_CODES,
    ...CLI_CODES,
  }))() satisfies Readonly<Record<string, CodeEntry>>;

/**
 * Any code sluice returns or throws.
 *
 * @category Errors
 */
export type SluiceCode = keyof typeof CODES;

/**
 * The codes of one stage of the catalog, or of several (`CodeOf<"session" | "transport">`).
 *
 * @example
 * ```ts
 * import type { CodeOf } from "@sluice/mcp";
 * const code: CodeOf<"identity"> = "json_cycle";
 * ```
 *
 * @category Errors
 */
export type CodeOf<Stage extends CodeStage> = {
  [Code in SluiceCode]: (typeof CODES)[Code]["stage"] extends Stage ? Code : never;
}[SluiceCode];

/**
 * The codes the catalog files under one {@link CodeGroup} (or any of several).
 *
 * @example
 * ```ts
 * import type { CodeIn } from "@sluice/mcp";
 * const code: CodeIn<"LockErrorCode"> = "lock_invalid";
 * ```
 *
 * @category Errors
 */
export type CodeIn<Group extends CodeGroup> = {
  [Code in SluiceCode]: (typeof CODES)[Code] extends { readonly in: readonly (infer Named)[] }
    ? Group extends Named ? Code : never
    : never;
}[SluiceCode];

/**
 * The stable code of a thrown value sluice made (any `SluiceError`), or `undefined` for
 * anything else. Replaces reading `.code` off an unknown value.
 *
 * @example
 * ```ts
 * import { codeOf, SluiceError } from "@sluice/mcp";
 * codeOf(new SluiceError("json_cycle", "a cycle")); // "json_cycle"
 * codeOf(new Error("other")); // undefined
 * ```
 *
 * @param error any thrown value
 *
 * @category Errors
 */
export function codeOf(error: unknown): SluiceCode | undefined {
  return error instanceof SluiceError ? error.code : undefined;
}
