/**
 * The npm packages only some entry points need. The npm package lists them as optional
 * `peerDependencies` (`scripts/build_npm.ts` reads this table), so `npm install @sluice/mcp`
 * brings only what `connect()` and the core use; the entry that needs one loads it with
 * {@link loadOptional}, which turns "module not found" into a `dependency_missing` error naming
 * the package and the version to install.
 *
 * @module
 */
import { SluiceError } from "./errors.ts";

/**
 * One optional package: who needs it, the range the npm package accepts, and the versions tested.
 *
 * @category Errors
 */
export interface OptionalPackage {
  /** The entry point (or command) that loads it. */
  readonly neededBy: string;
  /** The `peerDependencies` range. */
  readonly range: string;
  /** The versions the tests run; the last is the one to install (deno.json pins it). */
  readonly tested: readonly string[];
}

/**
 * Every optional package, by npm name.
 *
 * @category Errors
 */
export const OPTIONAL_PACKAGES = {
  ai: { neededBy: "@sluice/mcp/ai-sdk", range: "^6.0.0 || ^7.0.0", tested: ["6.0.325", "7.0.173"] },
  libsql: {
    neededBy: "@sluice/mcp/libsql (a store in a file)",
    range: "^0.5.29",
    tested: ["0.5.29"],
  },
  "@libsql/client": {
    neededBy: "@sluice/mcp/libsql (a libSQL server, the token store, the CLI)",
    range: "^0.18.0",
    tested: ["0.18.0"],
  },
  postgres: { neededBy: "@sluice/mcp/postgres", range: "^3.4.9", tested: ["3.4.9"] },
  "@opentelemetry/api": {
    neededBy: "telemetry (the host passes its tracer and meter; sluice never imports it)",
    range: "^1.7.0",
    tested: ["1.10.0"],
  },
  "@modelcontextprotocol/server": {
    neededBy: "@sluice/mcp/serve (and `sluice serve`)",
    range: "^2.4.0",
    tested: ["2.4.0"],
  },
  jose: {
    neededBy: "@sluice/mcp/serve as an OAuth protected resource (JWT access tokens)",
    range: "^6.0.0",
    tested: ["6.2.18"],
  },
} as const satisfies Readonly<Record<string, OptionalPackage>>;

/**
 * The name of an optional package.
 *
 * @category Errors
 */
export type OptionalPackageName = keyof typeof OPTIONAL_PACKAGES;

/** Whether `error` says that the package `name` itself could not be found (Node, Bun, Deno). */
function isMissing(error: unknown, name: string): boolean {
  const message = String((error as { message?: unknown })?.message ?? "");
  const code = (error as { code?: unknown })?.code;
  // The package named in quotes: a missing platform binary of it (`@libsql/linux-x64-gnu`)
  // or a missing dependency of it is a different failure and keeps its own error.
  const named = message.includes(`'${name}'`) || message.includes(`"${name}"`);
  return named &&
    (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND" ||
      /cannot find|could not find|not found|failed to resolve/i.test(message));
}

/**
 * The error for a missing optional package: names it, who needs it, and what to install.
 *
 * @param name the package
 * @param cause the runtime's own error, kept as `cause`
 * @returns a `SluiceError` with code `dependency_missing`
 *
 * @category Errors
 */
export function dependencyMissing(
  name: OptionalPackageName,
  cause?: unknown,
): SluiceError<"dependency_missing"> {
  const entry: OptionalPackage = OPTIONAL_PACKAGES[name];
  const version = entry.tested.at(-1);
  const others = entry.tested.length > 1 ? ` (${entry.range} works)` : "";
  return new SluiceError(
    "dependency_missing",
    `${entry.neededBy} needs the npm package ${name}, which is not installed: ` +
      `npm install ${name}@${version}${others}.`,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * Loads an optional package (`load` is the entry's own `import("<name>")`, or of the module that
 * imports it); a missing package rejects with {@link dependencyMissing}, any other failure as it
 * is.
 *
 * @example
 * ```ts
 * import { loadOptional } from "./optional_packages.ts";
 * const { default: postgres } = await loadOptional("postgres", () => import("postgres"));
 * ```
 *
 * @param name the package
 * @param load imports it
 * @returns the module
 *
 * @category Errors
 */
export async function loadOptional<T>(
  name: OptionalPackageName,
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    throw isMissing(error, name) ? dependencyMissing(name, error) : error;
  }
}
