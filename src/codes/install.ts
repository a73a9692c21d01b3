/**
 * The `install` stage of the code catalog (an optional package an entry point needs);
 * `src/codes.ts` assembles the stages.
 *
 * @module
 */
import type { StageCodes } from "./entry.ts";

/**
 * The `install` stage's codes, each with its meaning: the part of {@link CODES} this stage writes.
 *
 * @category Errors
 */
export const INSTALL_CODES = {
  dependency_missing: {
    stage: "install",
    meaning: "An entry point needs an optional npm package that is not installed.",
  },
} as const satisfies StageCodes<"install">;
