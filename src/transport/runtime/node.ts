/**
 * Runtime shim: name resolution on Node and Bun through `dns.promises.lookup(name, { all })`,
 * the same system resolver their `fetch` connects through.
 *
 * `on_node.ts` and `on_bun.ts` (chosen by the npm package's export conditions) pass `node:dns`
 * imported statically; the sources' own choice (`mod.ts`, which must bundle for Workers) finds it
 * with `process.getBuiltinModule` instead of an import.
 *
 * @module
 */
import type { Resolver } from "../resolver.ts";

/**
 * The part of `node:dns` `promises` the resolver uses.
 *
 * @category Transport
 */
export interface NodeDnsPromises {
  /** `dns.promises.lookup`. */
  lookup(
    hostname: string,
    options: { all: true; verbatim: true },
  ): Promise<{ address: string; family: number }[]>;
}
interface NodeProcess {
  getBuiltinModule?: (id: string) => unknown;
}

/**
 * A resolver backed by `dns.promises.lookup` of the given module.
 *
 * @param promises `node:dns` `promises`
 * @returns the resolver
 *
 * @category Transport
 */
export function lookupResolver(promises: NodeDnsPromises): Resolver {
  return async (hostname) => {
    const answers = await promises.lookup(hostname, { all: true, verbatim: true });
    return answers.map((answer) => answer.address);
  };
}

/**
 * Returns a resolver backed by Node's `dns.promises.lookup`, found through
 * `process.getBuiltinModule`, or `undefined` without it.
 *
 * @category Transport
 */
export function nodeResolver(): Resolver | undefined {
  const process = (globalThis as { process?: NodeProcess }).process;
  if (typeof process?.getBuiltinModule !== "function") return undefined;
  const dns = process.getBuiltinModule("node:dns") as { promises?: NodeDnsPromises } | undefined;
  const promises = dns?.promises;
  if (promises === undefined || typeof promises.lookup !== "function") return undefined;
  return lookupResolver(promises);
}
