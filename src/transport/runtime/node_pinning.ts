/**
 * Runtime shim: DNS pinning on Node. Node's built-in `fetch` takes a `dispatcher`: an `Agent`
 * from the npm `undici` package whose `connect.lookup` answers a host name with only the
 * addresses the check approved for it, so the TCP connection goes to one of them while TLS still
 * sends and verifies the URL's host name (`servername` stays the name; only the address is
 * pinned). https and plain http take the same path.
 *
 * `undici` is loaded with `import()` at the first pinned request, only on Node, through a
 * specifier held in a variable so bundlers (the Workers bundle) leave it out; the npm package
 * lists it as a dependency (`scripts/build_npm.ts`). Pinning is reported only where the Node's
 * bundled undici has the major version the dispatcher interface of the pinned package matches
 * (`process.versions.undici`, 6 on Node 20 and 22); `node:tls` comes from
 * `process.getBuiltinModule`.
 *
 * @module
 */
import type { PinnedConnector, RuntimePinning } from "../pinning.ts";

/** The undici major whose `Agent` Node's built-in `fetch` accepts as a dispatcher. */
const UNDICI_MAJOR = "6";
/** Held in a variable so bundlers do not follow it; deno.json pins the version. */
const UNDICI: string = "undici";

type LookupAnswer = { address: string; family: number };
type LookupCallback = (
  error: Error | null,
  address: string | readonly LookupAnswer[],
  family?: number,
) => void;
type Lookup = (hostname: string, options: { all?: boolean }, callback: LookupCallback) => void;
interface Dispatcher {
  close(): Promise<void>;
}
interface Undici {
  Agent: new (options: { connect: { lookup: Lookup; ca?: string[] } }) => Dispatcher;
}
interface NodeTls {
  rootCertificates: readonly string[];
}
interface NodeProcess {
  versions?: { node?: string; undici?: string };
  getBuiltinModule?: (id: string) => unknown;
}

function openNode(tls: NodeTls, caCerts: readonly string[] | undefined): PinnedConnector {
  // The host name as the URL spells it, to the addresses of its latest check.
  const pins = new Map<string, readonly string[]>();
  const lookup: Lookup = (hostname, options, callback) => {
    const addresses = pins.get(hostname.toLowerCase());
    if (addresses === undefined || addresses.length === 0) {
      callback(new Error("no approved address for this host"), "");
      return;
    }
    const answers = addresses.map((address) => ({
      address,
      family: address.includes(":") ? 6 : 4,
    }));
    if (options.all === true) callback(null, answers);
    else callback(null, answers[0].address, answers[0].family);
  };
  // `ca` replaces the default roots, so the system roots are kept beside the extra ones.
  const ca = caCerts === undefined ? {} : { ca: [...tls.rootCertificates, ...caCerts] };
  let agent: Promise<Dispatcher> | undefined;

  return {
    async fetch(request, target) {
      agent ??= (import(UNDICI) as Promise<Undici>).then((undici) =>
        new undici.Agent({ connect: { lookup, ...ca } })
      );
      const dispatcher = await agent;
      pins.set(target.hostname, target.addresses);
      return await fetch(request, { dispatcher } as RequestInit);
    },
    async close() {
      if (agent !== undefined) await (await agent).close();
    },
  };
}

/**
 * Node's pinning, or `undefined` when not running on Node or when its bundled undici is not the
 * major version the pinned `undici` package serves.
 *
 * @returns the mechanism, or `undefined`
 *
 * @category Transport
 */
export function nodePinning(): RuntimePinning | undefined {
  const scope = globalThis as { Deno?: unknown; Bun?: unknown; process?: NodeProcess };
  if (scope.Deno !== undefined || scope.Bun !== undefined) return undefined;
  const process = scope.process;
  if (typeof process?.versions?.node !== "string") return undefined;
  if (process.versions.undici?.split(".")[0] !== UNDICI_MAJOR) return undefined;
  if (typeof process.getBuiltinModule !== "function") return undefined;
  const tls = process.getBuiltinModule("node:tls") as NodeTls | undefined;
  if (tls === undefined || !Array.isArray(tls.rootCertificates)) return undefined;
  return { source: "node", open: ({ caCerts }) => openNode(tls, caCerts) };
}
