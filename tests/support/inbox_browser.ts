/**
 * Headless Chromium for the inbox's browser tests: Debian's `chromium` driven by
 * `playwright-core`, and `cli.ts inbox` (`sluice inbox`) started as a real process that
 * prints its one-time login link.
 *
 * @module
 */
import { type Browser, chromium } from "playwright-core";
import { PROJECT_ROOT } from "../../fixtures/write_server_launch.ts";

/** Where Debian installs Chromium (`apt-get install -y chromium`). */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/**
 * Whether the browser tests run: always in CI (where `.ci/run` installs Chromium, so a missing
 * one fails the test instead of skipping it), elsewhere only when Chromium is installed.
 */
export function browserTestsRun(): boolean {
  if (Deno.env.get("CI") === "true") return true;
  try {
    return Deno.statSync(CHROMIUM_PATH).isFile;
  } catch {
    return false;
  }
}

/** Launches headless Chromium with the flags this machine needs (see NOTES.md). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
    timeout: 30_000,
  });
}

/** A running `sluice inbox` process. */
export interface InboxProcess {
  /** Its PID. */
  readonly pid: number;
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** The one-time login link it printed. */
  readonly loginLink: string;
  /** Everything it printed up to the link. */
  readonly printed: string;
  /** Stops it by PID (SIGTERM) and waits for its exit. */
  stop(): Promise<Deno.CommandStatus>;
}

/**
 * Starts `cli.ts inbox --db <db> --port 0 --as <person>` (no `--as` when `person` is
 * undefined; `env` then replaces the whole environment); waits (bounded) for its link.
 */
export async function startInboxCli(
  db: string,
  person: string | undefined,
  timeoutMs = 30_000,
  env?: Record<string, string>,
): Promise<InboxProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      "cli.ts",
      "inbox",
      "--db",
      db,
      "--port",
      "0",
      ...(person === undefined ? [] : ["--as", person]),
    ],
    ...(env === undefined ? {} : { env, clearEnv: true }),
    cwd: PROJECT_ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch {
      // Already exited.
    }
    return await child.status;
  };
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const timer = setTimeout(() => reader.cancel(), timeoutMs);
  let buffered = "";
  try {
    while (!/open this link once to sign in: \S+\n/.test(buffered)) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += value;
    }
  } finally {
    clearTimeout(timer);
  }
  // Keep draining stdout so the process never blocks on a full pipe.
  (async () => {
    while (!(await reader.read()).done) {
      // Discard.
    }
  })().catch(() => undefined);
  const loginLink = /open this link once to sign in: (\S+)\n/.exec(buffered)?.[1];
  const origin = loginLink === undefined ? undefined : new URL(loginLink).origin;
  if (loginLink === undefined || origin === undefined) {
    await stop();
    throw new Error(`sluice inbox printed no login link: ${buffered}`);
  }
  return { pid: child.pid, origin, loginLink, printed: buffered, stop };
}
