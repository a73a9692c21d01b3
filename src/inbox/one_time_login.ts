/**
 * `oneTimeLogin`: the inbox's sign-in for one operator on one machine. It makes a random login
 * token; the first request to the login path with it gets a session cookie (HttpOnly,
 * SameSite=Strict) and the token is spent. `authorize` then knows that browser as the person.
 *
 * @module
 */
import { InboxError } from "./errors.ts";
import { equalSecrets, randomToken } from "./secrets.ts";
import type { InboxAuthorize } from "./approval_inbox.ts";

/**
 * Options of {@link oneTimeLogin}.
 *
 * @category Approval inbox
 */
export interface OneTimeLoginOptions {
  /** The person the login signs in (recorded as the decider). */
  readonly person: string;
  /** The path the inbox is mounted at (default: the root); the login path is below it. */
  readonly basePath?: string;
  /** How long the session lasts, in milliseconds (default 12 hours). */
  readonly sessionTtlMs?: number;
  /** How long the login link can be used, in milliseconds (default 15 minutes). */
  readonly linkTtlMs?: number;
  /** Clock in milliseconds since the Unix epoch (default `Date.now`). */
  readonly now?: () => number;
}

/**
 * A one-time login: its link's path, the exchange, and the `authorize` for the inbox.
 *
 * @category Approval inbox
 */
export interface OneTimeLogin {
  /** The path and query of the login link, such as `/login?token=…`; append it to the origin. */
  readonly loginPath: string;
  /** Answers the login path (exchange the token once, or refuse); `undefined` for other paths. */
  handle(request: Request): Promise<Response> | undefined;
  /** The person for a request carrying a live session cookie; `undefined` otherwise. */
  readonly authorize: InboxAuthorize;
}

const COOKIE = "sluice_inbox_session";

function refusal(message: string): Response {
  return new Response(`${message}\n`, {
    status: 401,
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
    },
  });
}

/**
 * Creates a one-time login for `person`. The link works once; the session cookie it sets is
 * the only way in afterwards. Throws `inbox_options_invalid` for an empty person.
 *
 * @example
 * ```ts
 * import { approvalInbox, oneTimeLogin } from "@sluice/mcp/inbox";
 * import { MemoryApprovalStore } from "@sluice/mcp";
 *
 * const login = oneTimeLogin({ person: "alice" });
 * const inbox = approvalInbox({ store: new MemoryApprovalStore(), authorize: login.authorize });
 * const handler = (request: Request) => login.handle(request) ?? inbox(request);
 * console.log(`open http://127.0.0.1:8787${login.loginPath}`);
 * // Deno.serve({ hostname: "127.0.0.1", port: 8787 }, handler);
 * ```
 *
 * @param options the person, mount path and lifetimes
 *
 * @category Approval inbox
 */
export function oneTimeLogin(options: OneTimeLoginOptions): OneTimeLogin {
  if (typeof options?.person !== "string" || options.person.trim() === "") {
    throw new InboxError("inbox_options_invalid", "person must be a non-empty string");
  }
  const base = options.basePath ?? "";
  const now = options.now ?? Date.now;
  const sessionTtlMs = options.sessionTtlMs ?? 12 * 60 * 60 * 1000;
  const linkExpires = now() + (options.linkTtlMs ?? 15 * 60 * 1000);
  let token: string | undefined = randomToken();
  const loginPath = `${base}/login?token=${token}`;
  const sessions = new Map<string, number>();

  return {
    loginPath,
    handle(request) {
      const url = new URL(request.url);
      if (url.pathname !== `${base}/login`) return undefined;
      return (async () => {
        const offered = url.searchParams.get("token");
        if (request.method !== "GET" || offered === null || token === undefined) {
          return refusal("inbox_login_invalid: this login link was already used or is wrong.");
        }
        if (!(await equalSecrets(offered, token))) {
          return refusal("inbox_login_invalid: this login link was already used or is wrong.");
        }
        // Spent on first use, even when it has expired.
        token = undefined;
        if (now() > linkExpires) return refusal("inbox_login_invalid: this login link expired.");
        const session = randomToken();
        sessions.set(session, now() + sessionTtlMs);
        return new Response(null, {
          status: 303,
          headers: {
            location: `${base}/`,
            "set-cookie": `${COOKIE}=${session}; Path=${
              base || "/"
            }; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(sessionTtlMs / 1000)}`,
            "cache-control": "no-store",
            "referrer-policy": "no-referrer",
          },
        });
      })();
    },
    authorize(request) {
      const cookies = request.headers.get("cookie") ?? "";
      for (const part of cookies.split(";")) {
        const [name, value] = part.trim().split("=", 2);
        if (name !== COOKIE || value === undefined) continue;
        const expires = sessions.get(value);
        if (expires === undefined) continue;
        if (now() > expires) {
          sessions.delete(value);
          continue;
        }
        return options.person;
      }
      return undefined;
    },
  };
}
