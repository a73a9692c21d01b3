/**
 * Runtime shim: DNS pinning on Deno. Deno's `fetch` takes no resolver, so https requests go
 * through an in-process CONNECT proxy (`deno_tunnel.ts`) passed as the `Deno.createHttpClient`
 * proxy, which dials only an address the check approved for that host and port; TLS runs end to
 * end inside the tunnel, so the certificate is still verified against the URL's host name. Plain
 * http (loopback development only) goes through a client whose `tcp` transport dials the
 * approved address directly, with the `Host` header kept.
 *
 * Found by feature detection on `globalThis`, like the resolver: no `Deno` namespace types.
 *
 * @module
 */
import {
  type PinnedConnector,
  type PinnedTarget,
  PinTable,
  type RuntimePinning,
} from "../pinning.ts";
import { closeQuietly, type Closer, type DenoNet, granted, refusedPermission } from "./deno_net.ts";
import { TunnelProxy } from "./deno_tunnel.ts";

function openDeno(deno: DenoNet, caCerts: readonly string[] | undefined): PinnedConnector {
  const table = new PinTable();
  const trust = caCerts === undefined ? {} : { caCerts: [...caCerts] };
  // The tunnel proxy starts at the first https request.
  let proxy: TunnelProxy | undefined;
  const plainClients = new Map<string, Closer>();
  const plainClient = (target: PinnedTarget): Closer => {
    const key = `${target.addresses[0]}:${target.port}`;
    let plain = plainClients.get(key);
    if (plain === undefined) {
      plain = deno.createHttpClient({
        ...trust,
        proxy: { transport: "tcp", hostname: target.addresses[0], port: target.port },
      });
      plainClients.set(key, plain);
    }
    return plain;
  };

  return {
    fetch(request, target) {
      const entry = (address: string) =>
        `${address.includes(":") ? `[${address}]` : address}:${target.port}`;
      if (!target.addresses.some((address) => granted(deno, entry(address)))) {
        throw refusedPermission(undefined, target.addresses.map(entry).join(","));
      }
      if (new URL(request.url).protocol === "https:") {
        proxy ??= new TunnelProxy(deno, table, trust);
        table.pin(target);
        return fetch(request, { client: proxy.client } as RequestInit);
      }
      return fetch(request, { client: plainClient(target) } as RequestInit);
    },
    async close() {
      for (const plain of plainClients.values()) closeQuietly(plain);
      await proxy?.close();
    },
  };
}

/**
 * Deno's pinning, or `undefined` when not running on Deno.
 *
 * @returns the mechanism, or `undefined`
 *
 * @category Transport
 */
export function denoPinning(): RuntimePinning | undefined {
  const deno = (globalThis as { Deno?: Partial<DenoNet> }).Deno;
  if (
    deno === undefined || typeof deno.createHttpClient !== "function" ||
    typeof deno.listen !== "function" || typeof deno.connect !== "function" ||
    typeof deno.permissions?.querySync !== "function"
  ) return undefined;
  const net = deno as DenoNet;
  return { source: "deno", open: ({ caCerts }) => openDeno(net, caCerts) };
}
