/**
 * What the OAuth tests against oidc-provider share: the server options of `connect()`, the
 * provider's token request log read after a point, and the world of a code flow with a
 * registered redirect URI (its listener, both servers, Chromium), stopped afterwards.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { connect, type OAuthClient } from "../../mod.ts";
import {
  type AuthorizationServerOptions,
  type AuthorizationServerProcess,
  type DPoPResourceOptions,
  type ProtectedMcpServer,
  startAuthorizationServer,
  startProtectedMcpServer,
  type TokenRequestSeen,
} from "../../fixtures/oauth_mcp_server.ts";
import { launchChromium } from "../support/inbox_browser.ts";

/** Plain http on loopback, the loudly named way. */
export const LOOPBACK = { dangerouslyAllowLoopback: true, timeoutMs: 15_000 } as const;

/** The protected server's options in `connect()`: its `echo` tool, pre-approved. */
export const MCP_OPTIONS = {
  id: "docs",
  allow: ["echo"],
  preApproved: ["echo"],
  transport: LOOPBACK,
} as const;

/** The token requests after the first `from`, once `count` of them were logged. */
export async function tokenRequestsAfter(
  as: AuthorizationServerProcess,
  from: number,
  count = 1,
): Promise<TokenRequestSeen[]> {
  for (let wait = 0; as.tokenRequests.length < from + count && wait < 40; wait++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return as.tokenRequests.slice(from);
}

/** A code flow's world: the redirect URI's listener, both servers and Chromium. */
export interface CodeFlowWorld {
  readonly mcp: ProtectedMcpServer;
  readonly as: AuthorizationServerProcess;
  readonly browser: Browser;
  /** The redirect URI the provider's `web` client is registered with. */
  readonly redirectUri: string;
  /** The first callback URL the browser came back with. */
  readonly callback: Promise<string>;
}

/** Runs `body` in a {@link CodeFlowWorld} and stops all of it afterwards. */
export async function withCodeFlowWorld<T>(
  options: {
    readonly mcp?: { readonly dpop?: DPoPResourceOptions };
    readonly as?: Omit<AuthorizationServerOptions, "redirectUri">;
  },
  body: (world: CodeFlowWorld) => Promise<T>,
): Promise<T> {
  const callback = Promise.withResolvers<string>();
  const listener = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    callback.resolve(request.url);
    return new Response("You may close this page.");
  });
  const redirectUri = `http://127.0.0.1:${listener.addr.port}/callback`;
  const mcp = await startProtectedMcpServer(options.mcp);
  const as = await startAuthorizationServer(mcp.url, { ...options.as, redirectUri });
  const browser = await launchChromium();
  try {
    mcp.setIssuer(as.issuer);
    return await body({ mcp, as, browser, redirectUri, callback: callback.promise });
  } finally {
    await browser.close();
    await listener.shutdown();
    await as.stop();
    await mcp.close();
  }
}

/**
 * Connects with `auth`, calls `echo`, lets every issued token expire and calls again: the
 * second call needs a refresh. Both calls must succeed.
 */
export async function echoAcrossExpiry(mcp: ProtectedMcpServer, auth: OAuthClient): Promise<void> {
  const connection = await connect(mcp.url, { ...MCP_OPTIONS, auth });
  try {
    const first = await connection.toolkit.call("docs__echo", { message: "hi" });
    assert.equal(first.errorCode, undefined, JSON.stringify(first));
    mcp.expireIssuedTokens();
    // JWT `iat` has second precision: wait past the expired second.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const again = await connection.toolkit.call("docs__echo", { message: "after refresh" });
    assert.equal(again.errorCode, undefined, JSON.stringify(again));
  } finally {
    await connection.close();
  }
}

/**
 * A P-256 key pair, extractable so that a test can look for the private key in what was sent
 * (a host would make its private key non-extractable).
 */
export function testKeyPair(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ]);
}
