/**
 * The person at the browser for the OAuth tests: oidc-provider's own development login and
 * consent pages in headless Chromium, and `sluice login` started as a real process on any
 * runtime, its authorization URL read from what it prints.
 *
 * @module
 */
import type { Browser } from "playwright-core";
import { root } from "../../fixtures/package/npm_cache.ts";
import {
  type AuthorizationServerProcess,
  type ProtectedMcpServer,
  startAuthorizationServer,
  startProtectedMcpServer,
} from "../../fixtures/oauth_mcp_server.ts";
import { launchChromium } from "./inbox_browser.ts";

/** The real OAuth world of a browser test. */
export interface OAuthWorld {
  /** The protected MCP server (the issuer already set). */
  readonly mcp: ProtectedMcpServer;
  /** oidc-provider in its own process. */
  readonly as: AuthorizationServerProcess;
  /** Headless Chromium. */
  readonly browser: Browser;
}

/**
 * Runs `body` with a protected MCP server, its authorization server and Chromium, and stops
 * all three (the authorization server by its PID) afterwards.
 */
export async function withOAuthWorld<T>(body: (world: OAuthWorld) => Promise<T>): Promise<T> {
  const mcp = await startProtectedMcpServer();
  const as = await startAuthorizationServer(mcp.url);
  const browser = await launchChromium();
  try {
    mcp.setIssuer(as.issuer);
    return await body({ mcp, as, browser });
  } finally {
    await browser.close();
    await as.stop();
    await mcp.close();
  }
}

/**
 * Signs `person` in on oidc-provider's development pages at `authorizationUrl` and consents;
 * the provider then redirects the browser to the client's redirect URI.
 */
export async function authorizeInBrowser(
  browser: Browser,
  authorizationUrl: string,
  person: string,
): Promise<void> {
  const page = await browser.newPage();
  try {
    await page.goto(authorizationUrl);
    await page.fill("input[name=login]", person);
    await page.fill("input[name=password]", "any");
    await page.click("button[type=submit]");
    await page.waitForSelector("button[type=submit]");
    await page.click("button[type=submit]");
    await page.waitForURL((url) => url.pathname === "/callback");
  } finally {
    await page.close();
  }
}

/** A running `sluice login`. */
export interface LoginProcess {
  /** Its PID. */
  readonly pid: number;
  /** The authorization URL it printed. */
  readonly authorizationUrl: string;
  /** Its exit code and everything it printed, once it ends. */
  readonly done: Promise<{ code: number; stdout: string; stderr: string }>;
}

/**
 * Starts `<command...> login <args...>` from the repository root with `env` (added to PATH and
 * HOME only) and waits (bounded) for the authorization URL it prints; rejects with what it
 * printed when it ends first. The process is killed by its PID after `limitMs`.
 */
export async function startLogin(
  command: readonly string[],
  args: readonly string[],
  env: Record<string, string>,
  limitMs = 120_000,
): Promise<LoginProcess> {
  const child = new Deno.Command(command[0], {
    args: [...command.slice(1), "login", ...args],
    cwd: root,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "/tmp", ...env },
  }).spawn();
  const timer = setTimeout(() => {
    try {
      Deno.kill(child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }, limitMs);
  let stdout = "";
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let url: string | undefined;
  while (url === undefined) {
    const { value, done } = await reader.read();
    if (done) break;
    stdout += value;
    url = /^(http\S+\/auth\S*)$/m.exec(stdout)?.[1];
  }
  const done = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      stdout += value;
    }
    const status = await child.status;
    clearTimeout(timer);
    return { code: status.code, stdout, stderr: await stderr };
  })();
  if (url === undefined) {
    const ended = await done;
    throw new Error(
      `sluice login printed no authorization URL (exit ${ended.code}):\n${ended.stdout}\n${ended.stderr}`,
    );
  }
  return { pid: child.pid, authorizationUrl: url, done };
}
