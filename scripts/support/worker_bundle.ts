/**
 * The esbuild options every Worker bundle of sluice uses (the runtime smoke and the npm
 * consumer check): one ES module for a neutral platform with the Workers export conditions, so
 * packages pick their Web API builds and nothing needs `nodejs_compat`.
 *
 * @module
 */
import type { BuildOptions } from "esbuild";

/** Bundle options for workerd; add entry points, output and resolution paths. */
export const WORKER_BUILD_OPTIONS: BuildOptions = {
  bundle: true,
  format: "esm",
  platform: "neutral",
  conditions: ["workerd", "worker", "browser"],
  mainFields: ["module", "main"],
  logLevel: "warning",
};
