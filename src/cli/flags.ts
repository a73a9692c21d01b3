/**
 * The one flag parser of the CLI: `--name value`, `--name=value` and boolean `--name`, each at
 * most once; anything else not starting with `--` is positional. A wrong command line throws
 * {@link UsageError}, which every command prints with its usage and exit code 2.
 *
 * @module
 */

/**
 * A wrong command line; its message is printed (escaped) above the usage.
 *
 * @category CLI
 */
export class UsageError extends Error {}

/**
 * Which flags a command takes.
 *
 * @category CLI
 */
export interface FlagSpec {
  /** Flags that take a value. */
  readonly values: readonly string[];
  /** Flags that take none. */
  readonly booleans: readonly string[];
  /** The command, for messages (`unknown option --x for <command>`). */
  readonly command: string;
}

/**
 * What a command line holds: positional arguments and flags (booleans map to `""`).
 *
 * @category CLI
 */
export interface ParsedFlags {
  readonly positional: string[];
  readonly flags: Map<string, string>;
}

/**
 * Parses `args` against `spec`; throws {@link UsageError} for anything the spec does not take.
 *
 * @category CLI
 */
export function parseFlags(args: readonly string[], spec: FlagSpec): ParsedFlags {
  const positional: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith("--")) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const boolean = spec.booleans.includes(name);
    if (!boolean && !spec.values.includes(name)) {
      throw new UsageError(`unknown option --${name} for ${spec.command}`);
    }
    if (flags.has(name)) throw new UsageError(`--${name} given twice`);
    if (boolean) {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      flags.set(name, "");
      continue;
    }
    const value = eq < 0 ? args[++i] : arg.slice(eq + 1);
    if (value === undefined || value === "") throw new UsageError(`--${name} needs a value`);
    flags.set(name, value);
  }
  return { positional, flags };
}
