/**
 * `sluice login <url>`: an operator authorizes sluice at an OAuth-protected MCP server once;
 * later `connect()`s that use the same token store find the tokens. The logic is one function
 * of its options and output callbacks; the dispatcher opens the store.
 *
 * @module
 */
import { AuthError, authErrorCode } from "../auth/errors.ts";
import { OAuthClient } from "../auth/oauth_client.ts";
import type { TokenStore } from "../auth/token_store.ts";
import type { SecureFetchOptions } from "../transport/secure_fetch.ts";
import type { CliOutput } from "./approvals.ts";

/**
 * Options of {@link login}.
 *
 * @category CLI
 */
export interface LoginOptions {
  /** The MCP server's URL. */
  readonly url: string;
  /** Where the tokens go: the store later `connect()`s use. */
  readonly store: TokenStore;
  /** Where the URL to open and the outcome are written (never a token). */
  readonly output: CliOutput;
  /** The loopback port of the redirect listener. Default 0 (any free port). */
  readonly port?: number;
  /** The scope requested. Default: what the server lists. */
  readonly scope?: string;
  /** The hardened fetch's options (tests: loopback, a resolver). */
  readonly transport?: SecureFetchOptions;
  /** Aborts the wait for the browser. */
  readonly signal?: AbortSignal;
}

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "sluice-login", version: "0.1.0" },
  },
});

/**
 * Runs the authorization code flow for an operator: listens on `http://127.0.0.1:<port>/callback`,
 * prints the authorization URL to open, waits for the browser to come back, exchanges the code
 * and stores the tokens. Returns the exit code (0 stored, 1 refused), writing the outcome's
 * code to stderr on failure.
 *
 * @example
 * ```ts ignore
 * import { login } from "./src/cli/login.ts";
 * import { LibsqlTokenStore } from "./libsql.ts";
 * const store = await LibsqlTokenStore.open("./sluice.db", { key });
 * const code = await login({
 *   url: "https://mcp.example.com/mcp",
 *   store,
 *   output: { stdout: (t) => console.log(t.trimEnd()), stderr: (t) => console.error(t.trimEnd()) },
 * });
 * ```
 *
 * @param options the server, the store, the output and the listener's port
 * @returns the process exit code
 *
 * @category CLI
 */
export async function login(options: LoginOptions): Promise<number> {
  const { output } = options;
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    output.stderr("sluice login: the URL does not parse\n");
    return 1;
  }
  const callback = Promise.withResolvers<string>();
  const listener = Deno.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    onListen: () => {},
  }, (request) => {
    const path = new URL(request.url).pathname;
    if (path !== "/callback") return new Response("not found", { status: 404 });
    callback.resolve(request.url);
    return new Response("sluice: authorization received; you may close this page.");
  });
  const aborted = new Promise<never>((_, reject) => {
    options.signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
  });
  aborted.catch(() => {});
  try {
    const auth = new OAuthClient({
      store: options.store,
      redirectUri: `http://127.0.0.1:${listener.addr.port}/callback`,
      redirect: (authorization) =>
        output.stdout(`Open this URL to authorize:\n${authorization.href}\n`),
      ...(options.scope !== undefined ? { scope: options.scope } : {}),
    });
    const fetch = auth.fetchFor(url, options.transport ?? {});
    const probe = () =>
      fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: INITIALIZE,
      });
    try {
      const response = await probe();
      await response.body?.cancel();
      output.stdout("sluice login: a stored token already works for this server\n");
      return 0;
    } catch (error) {
      if (authErrorCode(error) !== "auth_authorization_required") throw error;
    }
    await auth.finish(await Promise.race([callback.promise, aborted]));
    output.stdout("sluice login: tokens stored\n");
    return 0;
  } catch (error) {
    const code = error instanceof AuthError || authErrorCode(error) !== undefined
      ? authErrorCode(error)
      : (error as { code?: string }).code ?? "aborted";
    output.stderr(`sluice login: ${code}\n`);
    return 1;
  } finally {
    await listener.shutdown();
  }
}
