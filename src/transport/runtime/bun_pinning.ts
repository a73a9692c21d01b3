/**
 * Runtime shim: DNS pinning on Bun. Bun's `fetch` takes no resolver but takes a `proxy` URL:
 * https requests go through the same kind of in-process CONNECT proxy as on Deno (here on
 * `node:net`), which tunnels only to an address the check approved, with TLS end to end. Plain
 * http (loopback development only) is sent to the approved address itself with the URL's
 * `Host` header.
 *
 * `node:net` is obtained with `process.getBuiltinModule`, only when running on Bun.
 *
 * @module
 */
import {
  MAX_CONNECT_HEAD_BYTES,
  parseConnectHead,
  type PinnedConnector,
  PinTable,
  type RuntimePinning,
} from "../pinning.ts";

interface NodeSocket {
  setNoDelay?(noDelay?: boolean): NodeSocket;
  write(data: Uint8Array | string): boolean;
  end(data?: string): void;
  destroy(): void;
  pipe(destination: NodeSocket): NodeSocket;
  pause(): void;
  resume(): void;
  on(event: "data", listener: (chunk: Uint8Array) => void): NodeSocket;
  on(event: "error" | "close", listener: () => void): NodeSocket;
  off(event: "data", listener: (chunk: Uint8Array) => void): NodeSocket;
  once(event: "connect" | "error", listener: () => void): NodeSocket;
}
interface NodeServer {
  listen(port: number, host: string, callback: () => void): void;
  address(): { port: number };
  close(callback?: () => void): void;
}
interface NodeNet {
  createServer(listener: (socket: NodeSocket) => void): NodeServer;
  connect(options: { host: string; port: number }): NodeSocket;
}
type BunFetchInit = RequestInit & { proxy?: string; tls?: { ca?: string[] } };

const HEAD_END = "\r\n\r\n";
const latin1 = new TextDecoder("latin1");
const refusal = (status: string) =>
  `HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`;

function dial(net: NodeNet, addresses: readonly string[], port: number): Promise<NodeSocket> {
  return new Promise((resolve, reject) => {
    const attempt = (index: number) => {
      if (index >= addresses.length) return reject(new Error("no approved address answered"));
      const socket = net.connect({ host: addresses[index], port });
      socket.once("connect", () => resolve(socket));
      socket.once("error", () => {
        socket.destroy();
        attempt(index + 1);
      });
    };
    attempt(0);
  });
}

function openBun(net: NodeNet, caCerts: readonly string[] | undefined): PinnedConnector {
  const table = new PinTable();
  const sockets = new Set<NodeSocket>();
  const hold = (socket: NodeSocket) => {
    sockets.add(socket);
    socket.setNoDelay?.(true);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const server = net.createServer((client) => {
    hold(client);
    const chunks: Uint8Array[] = [];
    let length = 0;
    const onData = (chunk: Uint8Array) => {
      chunks.push(chunk);
      length += chunk.length;
      const buffered = new Uint8Array(length);
      let offset = 0;
      for (const part of chunks) {
        buffered.set(part, offset);
        offset += part.length;
      }
      const text = latin1.decode(buffered);
      const end = text.indexOf(HEAD_END);
      if (end < 0) {
        if (length > MAX_CONNECT_HEAD_BYTES) client.end(refusal("403 Forbidden"));
        return;
      }
      client.off("data", onData);
      client.pause();
      const request = parseConnectHead(text.slice(0, end));
      const addresses = request === undefined ? undefined : table.allowed(request);
      if (request === undefined || addresses === undefined) {
        client.end(refusal("403 Forbidden"));
        return;
      }
      const rest = buffered.slice(end + HEAD_END.length);
      dial(net, addresses, request.port).then((upstream) => {
        hold(upstream);
        upstream.on("close", () => client.destroy());
        client.on("close", () => upstream.destroy());
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        if (rest.length > 0) upstream.write(rest);
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      }, () => client.end(refusal("502 Bad Gateway")));
    };
    client.on("data", onData);
  });
  const listening = new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const trust: BunFetchInit = caCerts === undefined ? {} : { tls: { ca: [...caCerts] } };

  return {
    async fetch(request, target) {
      const url = new URL(request.url);
      if (url.protocol !== "https:") {
        // Plain http: the approved address in the URL, the name in the Host header.
        const direct = new URL(url);
        const address = target.addresses[0];
        direct.hostname = address.includes(":") ? `[${address}]` : address;
        const headers = new Headers(request.headers);
        headers.set("host", url.host);
        return await fetch(new Request(direct, request), { headers, ...trust });
      }
      await listening;
      table.pin(target);
      const proxy = `http://${table.username}:${table.password}@127.0.0.1:${server.address().port}`;
      return await fetch(request, { ...trust, proxy } as BunFetchInit);
    },
    async close() {
      await listening;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

/**
 * Bun's pinning, or `undefined` when not running on Bun.
 *
 * @returns the mechanism, or `undefined`
 *
 * @category Transport
 */
export function bunPinning(): RuntimePinning | undefined {
  if ((globalThis as { Bun?: unknown }).Bun === undefined) return undefined;
  const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } })
    .process;
  if (typeof process?.getBuiltinModule !== "function") return undefined;
  const net = process.getBuiltinModule("node:net") as NodeNet | undefined;
  if (net === undefined || typeof net.createServer !== "function") return undefined;
  return { source: "bun", open: ({ caCerts }) => openBun(net, caCerts) };
}
