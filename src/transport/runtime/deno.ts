/**
 * Runtime shim: name resolution on Deno through `Deno.resolveDns` (A and AAAA).
 *
 * Deno's `resolveDns` asks DNS directly and does not read `/etc/hosts`, while `fetch` connects
 * through the system resolver; a hosts-file entry is local configuration, not remote input.
 *
 * @module
 */
import type { Resolver } from "../resolver.ts";

type RecordType = "A" | "AAAA";
interface DenoDns {
  resolveDns(
    query: string,
    type: RecordType,
    options?: { signal?: AbortSignal },
  ): Promise<string[]>;
}

// "No such name" and "no record of this type" are answers; anything else is a failure.
const isNoAnswer = (error: unknown): boolean => error instanceof Error && error.name === "NotFound";

/**
 * Returns a resolver backed by `Deno.resolveDns`, or `undefined` when not running on Deno.
 *
 * @category Transport
 */
export function denoResolver(): Resolver | undefined {
  const deno = (globalThis as { Deno?: Partial<DenoDns> }).Deno;
  if (deno === undefined || typeof deno.resolveDns !== "function") return undefined;
  const resolveDns = deno.resolveDns.bind(deno);
  return async (hostname, options) => {
    const lookups = await Promise.allSettled(
      (["A", "AAAA"] as const).map((type) =>
        resolveDns(hostname, type, { signal: options?.signal })
      ),
    );
    const addresses: string[] = [];
    for (const lookup of lookups) {
      if (lookup.status === "fulfilled") addresses.push(...lookup.value);
      // A failed lookup of one family could hide an address; fail closed.
      else if (!isNoAnswer(lookup.reason)) throw lookup.reason;
    }
    return addresses;
  };
}
