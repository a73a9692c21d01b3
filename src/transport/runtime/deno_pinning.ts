/**
 * Runtime shim: DNS pinning on Deno. Deno's `fetch` takes no resolver, so https requests go
 * through an in-process CONNECT proxy on 127.0.0.1 (a random port, a random credential) passed
 * as the `Deno.createHttpClient` proxy: the proxy answers `CONNECT host:port` by dialling only
 * an address the check approved for that host and port, and TLS runs end to end inside the
 * tunnel, so the certificate is still verified against the URL's host name. Plain http (loopback
 * development only) goes through a client whose `tcp` transport dials the approved address
 * directly, with the `Host` header kept.
 *
 * Found by feature detection on `globalThis`, like the resolver: no `Deno` namespace types.
 *
 * @module
 */
import {
  MAX_CONNECT_HEAD_BYTES,
  parseConnectHead,
  type PinnedConnector,
  type PinnedTarget,
  PinTable,
  type RuntimePinning,
} from "../pinning.ts";

interface Closer {
  close(): void;
}
interface DenoConn extends Closer {
  setNoDelay?(noDelay?: boolean): void;
  read(buffer: Uint8Array): Promise<number | null>;
  write(data: Uint8Array): Promise<number>;
}
interface DenoListener extends Closer, AsyncIterable<DenoConn> {
  readonly addr: { readonly port: number };
}
type ProxyOption =
  | { url: string; basicAuth: { username: string; password: string } }
  | { transport: "tcp"; hostname: string; port: number };
interface DenoPermissions {
  querySync(descriptor: { name: "net"; host: string }): { state: string };
}
interface DenoNet {
  permissions: DenoPermissions;
  listen(options: { hostname: string; port: number }): DenoListener;
  connect(options: { hostname: string; port: number }): Promise<DenoConn>;
  createHttpClient(options: { caCerts?: string[]; http2?: boolean; proxy: ProxyOption }): Closer;
}

async function writeAll(conn: DenoConn, data: Uint8Array): Promise<void> {
  let written = 0;
  while (written < data.length) written += await conn.write(data.subarray(written));
}

/** Copies `from` into `to` until `from` ends or either fails. */
async function pump(from: DenoConn, to: DenoConn): Promise<void> {
  const buffer = new Uint8Array(64 * 1024);
  for (;;) {
    const count = await from.read(buffer);
    if (count === null) return;
    await writeAll(to, buffer.subarray(0, count));
  }
}

const HEAD_END = "\r\n\r\n";
const latin1 = new TextDecoder("latin1");
const ascii = new TextEncoder();
const refusal = (status: string) =>
  ascii.encode(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);

/** Reads the request head; returns it and any bytes after it, or `undefined` past the cap. */
async function readHead(
  conn: DenoConn,
): Promise<{ head: string; rest: Uint8Array } | undefined> {
  const buffer = new Uint8Array(MAX_CONNECT_HEAD_BYTES);
  let length = 0;
  while (length < buffer.length) {
    const count = await conn.read(buffer.subarray(length));
    if (count === null) return undefined;
    length += count;
    const text = latin1.decode(buffer.subarray(0, length));
    const end = text.indexOf(HEAD_END);
    if (end >= 0) {
      return { head: text.slice(0, end), rest: buffer.slice(end + HEAD_END.length, length) };
    }
  }
  return undefined;
}

/** Whether Deno's net permission covers `host` (`address:port`) without prompting. */
function granted(deno: DenoNet, host: string): boolean {
  try {
    return deno.permissions.querySync({ name: "net", host }).state === "granted";
  } catch {
    return false;
  }
}

/** A refusal that the pinned path reports as `transport_permission_denied` with the flags. */
function refusedPermission(error: unknown, allowNet: string): unknown {
  if (error !== undefined && (error as Error)?.name !== "NotCapable") return error;
  return Object.assign(new Error("net permission missing for DNS pinning"), {
    name: "NotCapable",
    pinningAllowNet: allowNet,
  });
}

async function dial(
  deno: DenoNet,
  addresses: readonly string[],
  port: number,
): Promise<DenoConn | undefined> {
  for (const address of addresses) {
    try {
      return await deno.connect({ hostname: address, port });
    } catch {
      // The next approved address, if any.
    }
  }
  return undefined;
}

function openDeno(deno: DenoNet, caCerts: readonly string[] | undefined): PinnedConnector {
  const table = new PinTable();
  const trust = caCerts === undefined ? {} : { caCerts: [...caCerts] };
  let proxy: { listener: DenoListener; client: Closer } | undefined;
  const plainClients = new Map<string, Closer>();
  const open = new Set<DenoConn>();
  const tasks = new Set<Promise<void>>();
  const track = (task: Promise<void>) => {
    tasks.add(task);
    task.finally(() => tasks.delete(task));
  };
  const closeQuietly = (conn: Closer) => {
    try {
      conn.close();
    } catch {
      // Already closed.
    }
  };

  const tunnel = async (conn: DenoConn): Promise<void> => {
    open.add(conn);
    // TLS records relayed as they come: Nagle's wait for an ACK would add delayed-ACK stalls.
    conn.setNoDelay?.(true);
    let upstream: DenoConn | undefined;
    try {
      const head = await readHead(conn);
      const request = head === undefined ? undefined : parseConnectHead(head.head);
      const addresses = request === undefined ? undefined : table.allowed(request);
      if (head === undefined || request === undefined || addresses === undefined) {
        await writeAll(conn, refusal("403 Forbidden"));
        return;
      }
      upstream = await dial(deno, addresses, request.port);
      if (upstream === undefined) {
        await writeAll(conn, refusal("502 Bad Gateway"));
        return;
      }
      open.add(upstream);
      upstream.setNoDelay?.(true);
      await writeAll(conn, ascii.encode("HTTP/1.1 200 Connection Established\r\n\r\n"));
      if (head.rest.length > 0) await writeAll(upstream, head.rest);
      const target = upstream;
      // Either direction ending ends the tunnel: TLS needs no half-closed connection.
      await Promise.race([pump(conn, target), pump(target, conn)]);
    } catch {
      // A closed or reset socket ends the tunnel.
    } finally {
      closeQuietly(conn);
      open.delete(conn);
      if (upstream !== undefined) {
        closeQuietly(upstream);
        open.delete(upstream);
      }
    }
  };

  /** The tunnel proxy and its client, started at the first https request. */
  const startProxy = (): { listener: DenoListener; client: Closer } => {
    let listener: DenoListener;
    try {
      listener = deno.listen({ hostname: "127.0.0.1", port: 0 });
    } catch (error) {
      throw refusedPermission(error, "127.0.0.1");
    }
    const client = deno.createHttpClient({
      ...trust,
      // HTTP/1.1 in the tunnel: HTTP/2 through it measured 3.5 ms a request on loopback, against
      // 0.9 ms for HTTP/1.1 and 0.8 ms for a direct connection.
      http2: false,
      proxy: {
        url: `http://127.0.0.1:${listener.addr.port}`,
        basicAuth: { username: table.username, password: table.password },
      },
    });
    track((async () => {
      try {
        for await (const conn of listener) track(tunnel(conn));
      } catch {
        // The listener was closed.
      }
    })());
    return { listener, client };
  };

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
        proxy ??= startProxy();
        table.pin(target);
        return fetch(request, { client: proxy.client } as RequestInit);
      }
      return fetch(request, { client: plainClient(target) } as RequestInit);
    },
    async close() {
      if (proxy !== undefined) {
        closeQuietly(proxy.listener);
        closeQuietly(proxy.client);
      }
      for (const plain of plainClients.values()) closeQuietly(plain);
      for (const conn of open) closeQuietly(conn);
      await Promise.allSettled([...tasks]);
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
