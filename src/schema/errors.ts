import { SluiceError } from "../errors.ts";
import type { SchemaProblem } from "./types.ts";

/**
 * Thrown by {@link compileSchema} for a schema outside `sluice.schema/v1`. The message names only
 * the problem codes (sluice's own words); the keywords and pointers, which come from the schema's
 * author, are in `problems`.
 *
 * @example
 * ```ts
 * import { compileSchema, SchemaUnsupportedError } from "@sluice/mcp";
 * try {
 *   compileSchema({ type: "object", "x-vendor": 1 });
 * } catch (error) {
 *   if (error instanceof SchemaUnsupportedError) console.log(error.problems[0].keyword);
 * }
 * ```
 *
 * @category Schema profile
 */
export class SchemaUnsupportedError extends SluiceError<"schema_unsupported"> {
  /** Every reason the schema does not fit, with keyword and JSON Pointer. */
  readonly problems: readonly SchemaProblem[];

  /**
   * Creates the error for a schema with at least one problem.
   *
   * @param problems what `checkSchema` found
   */
  constructor(problems: readonly SchemaProblem[]) {
    const codes = [...new Set(problems.map((problem) => problem.code))].join(", ");
    super("schema_unsupported", `schema does not fit sluice.schema/v1: ${codes}`);
    this.name = "SchemaUnsupportedError";
    this.problems = problems;
  }
}
