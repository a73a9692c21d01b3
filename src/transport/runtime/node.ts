/**
 * Runtime shim: name resolution on Node and Bun through `dns.promises.lookup(name, { all })`,
 * the same system resolver their `fetch` connects through.
 *
 * The module is obtained with `process.getBuiltinModule` (Node 20.16+, Bun) instead of an import,
 * so bundles for runtimes without `node:dns` stay free of it.
 *
 * @module
 */
import type { Resolver } from "../resolver.ts";

interface NodeDnsPromises {
  lookup(
    hostname: string,
    options: { all: true; verbatim: true },
  ): Promise<{ address: string; family: number }[]>;
}
interface NodeProcess {
  getBuiltinModule?: (id: string) => unknown;
}

/**
 * Returns a resolver backed by Node's `dns.promises.lookup`, or `undefined` without it.
 *
 * @category Transport
 */
export function nodeResolver(): Resolver | undefined {
  const process = (globalThis as { process?: NodeProcess }).process;
  if (typeof process?.getBuiltinModule !== "function") return undefined;
  const dns = process.getBuiltinModule("node:dns") as { promises?: NodeDnsPromises } | undefined;
  const promises = dns?.promises;
  if (promises === undefined || typeof promises.lookup !== "function") return undefined;
  return async (hostname) => {
    const answers = await promises.lookup(hostname, { all: true, verbatim: true });
    return answers.map((answer) => answer.address);
  };
}
