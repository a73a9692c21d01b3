/**
 * The part of the `Deno` namespace DNS pinning uses, as structural types (found by feature
 * detection, not the namespace's own types), and Deno's net permission as pinning meets it.
 *
 * @module
 */

/** Anything Deno lets close: a connection, a listener, an HTTP client. */
export interface Closer {
  close(): void;
}
/** A TCP connection. */
export interface DenoConn extends Closer {
  setNoDelay?(noDelay?: boolean): void;
  read(buffer: Uint8Array): Promise<number | null>;
  write(data: Uint8Array): Promise<number>;
}
/** A TCP listener. */
export interface DenoListener extends Closer, AsyncIterable<DenoConn> {
  readonly addr: { readonly port: number };
}
/** `Deno.createHttpClient`'s proxy: the tunnel proxy, or a direct tcp dial. */
export type ProxyOption =
  | { url: string; basicAuth: { username: string; password: string } }
  | { transport: "tcp"; hostname: string; port: number };
interface DenoPermissions {
  querySync(descriptor: { name: "net"; host: string }): { state: string };
}
/** What pinning calls on `Deno`. */
export interface DenoNet {
  permissions: DenoPermissions;
  listen(options: { hostname: string; port: number }): DenoListener;
  connect(options: { hostname: string; port: number }): Promise<DenoConn>;
  createHttpClient(options: { caCerts?: string[]; http2?: boolean; proxy: ProxyOption }): Closer;
}

/** Closes, ignoring a second close. */
export function closeQuietly(closer: Closer): void {
  try {
    closer.close();
  } catch {
    // Already closed.
  }
}

/** Whether Deno's net permission covers `host` (`address:port`) without prompting. */
export function granted(deno: DenoNet, host: string): boolean {
  try {
    return deno.permissions.querySync({ name: "net", host }).state === "granted";
  } catch {
    return false;
  }
}

/** A refusal that the pinned path reports as `transport_permission_denied` with the flags. */
export function refusedPermission(error: unknown, allowNet: string): unknown {
  if (error !== undefined && (error as Error)?.name !== "NotCapable") return error;
  return Object.assign(new Error("net permission missing for DNS pinning"), {
    name: "NotCapable",
    pinningAllowNet: allowNet,
  });
}
