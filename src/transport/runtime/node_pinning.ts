/**
 * Runtime shim: DNS pinning on Node. Node's built-in `fetch` takes a `dispatcher`: an `Agent`
 * from the npm `undici` package whose `connect.lookup` answers a host name with only the
 * addresses the check approved for it, so the TCP connection goes to one of them while TLS still
 * sends and verifies the URL's host name (`servername` stays the name; only the address is
 * pinned). https and plain http take the same path.
 *
 * Imported only by `on_node.ts`, the module the npm package's `node` export condition selects,
 * so `undici` and `node:tls` are plain static imports and no other runtime's bundle sees them.
 * Pinning is reported only where Node's bundled undici has the major version the dispatcher
 * interface of the pinned package matches (`process.versions.undici`, 6 on Node 20 and 22).
 *
 * @module
 */
import { rootCertificates } from "node:tls";
import { Agent } from "undici";
import type { PinnedConnector, RuntimePinning } from "../pinning.ts";

/** The undici major whose `Agent` Node's built-in `fetch` accepts as a dispatcher. */
const UNDICI_MAJOR = "6";

type LookupAnswer = { address: string; family: number };
type LookupCallback = (
  error: Error | null,
  address: string | LookupAnswer[],
  family?: number,
) => void;
type Lookup = (hostname: string, options: { all?: boolean }, callback: LookupCallback) => void;
interface NodeProcess {
  versions?: { node?: string; undici?: string };
}

function openNode(caCerts: readonly string[] | undefined): PinnedConnector {
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
  const ca = caCerts === undefined ? {} : { ca: [...rootCertificates, ...caCerts] };
  let agent: Agent | undefined;

  return {
    async fetch(request, target) {
      agent ??= new Agent({ connect: { lookup, ...ca } });
      pins.set(target.hostname, target.addresses);
      return await fetch(request, { dispatcher: agent } as RequestInit);
    },
    async close() {
      if (agent !== undefined) await agent.close();
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
  return { source: "node", open: ({ caCerts }) => openNode(caCerts) };
}
