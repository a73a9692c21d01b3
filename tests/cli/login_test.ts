/**
 * `sluice login` as real processes on every runtime the CLI ships for: Deno from source, and
 * Node 20 (on PATH), Node 22 (the pinned npm `node` package) and Bun from the JavaScript the npm
 * package is built from (`writeJavaScript`, its dependencies installed once in the runtime
 * cache). On each: `--help`; a missing or unusable `SLUICE_TOKEN_KEY` is exit 2 saying how to
 * make one; a server that cannot be reached, or a loopback URL without `--allow-loopback`, is a
 * `refused:` line with a `hint:`; none leaves a file or prints a stack trace. With Chromium, a
 * full sign-in against oidc-provider whose tokens a Deno process then reads with the key.
 */
import assert from "node:assert/strict";
import { LibsqlTokenStore } from "../../libsql.ts";
import { writeJavaScript } from "../../fixtures/package/javascript.ts";
import { CLI_ENTRY, packageGraph } from "../../fixtures/package/package_graph.ts";
import {
  bunBinary,
  ensureInstalled,
  node22Binary,
  onPath,
  root,
  run,
  RUNTIME_CACHE,
} from "../../fixtures/package/npm_cache.ts";
import { browserTestsRun } from "../support/inbox_browser.ts";
import { authorizeInBrowser, startLogin, withOAuthWorld } from "../support/oauth_browser.ts";
import { freePort } from "../../fixtures/connect_servers.ts";

/** How a runtime starts the CLI: the command before `login ...`, from the repository root. */
type Launcher = (built: () => Promise<string>) => Promise<string[]>;

const RUNTIMES: Record<string, Launcher> = {
  Deno: () => Promise.resolve([Deno.execPath(), "run", "-A", "--quiet", "cli.ts"]),
  "Node 20": async (built) => {
    const node = await onPath("node");
    assert.ok(node !== undefined, "node is not on PATH");
    const version = (await run(node, ["--version"])).stdout.trim();
    assert.ok(version.startsWith("v20."), `${node} is ${version}, not Node 20`);
    return [node, await built()];
  },
  "Node 22": async (built) => [await node22Binary(), await built()],
  Bun: async (built) => [await bunBinary(), await built()],
};

/**
 * The CLI as the npm package's JavaScript in a temporary folder, its npm dependencies resolved
 * from the runtime cache through a `node_modules` link; `body` gets the entry file.
 */
async function withBuiltCli<T>(body: (built: () => Promise<string>) => Promise<T>): Promise<T> {
  let dir: string | undefined;
  const built = async () => {
    if (dir !== undefined) return `${dir}/cli.js`;
    const graph = await packageGraph([CLI_ENTRY]);
    await ensureInstalled(RUNTIME_CACHE, graph.dependencies);
    dir = await Deno.makeTempDir({ prefix: "sluice-login-cli-" });
    assert.deepEqual(await writeJavaScript(graph.files, dir), []);
    await Deno.symlink(`${RUNTIME_CACHE}/node_modules`, `${dir}/node_modules`);
    return `${dir}/cli.js`;
  };
  try {
    return await body(built);
  } finally {
    if (dir !== undefined) await Deno.remove(dir, { recursive: true });
  }
}

const KEY = crypto.getRandomValues(new Uint8Array(32));
const KEY_TEXT = btoa(String.fromCharCode(...KEY));

/** Runs `<command> login <args>` to its end with only PATH, HOME and `env`. */
async function login(command: readonly string[], args: readonly string[], env = {}) {
  return await run(command[0], [...command.slice(1), "login", ...args], {
    cwd: root,
    env: { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "/tmp", ...env },
    timeoutMs: 120_000,
  });
}

async function assertNoFiles(dir: string, what: string): Promise<void> {
  const left: string[] = [];
  for await (const entry of Deno.readDir(dir)) left.push(entry.name);
  assert.deepEqual(left, [], `${what}: left ${left.join(", ")}`);
}

for (const [name, launcher] of Object.entries(RUNTIMES)) {
  Deno.test(`sluice login on ${name}: help, key refusals (exit 2), server refusals with hints, no file left`, async () => {
    await withBuiltCli(async (built) => {
      const command = await launcher(built);
      const dir = await Deno.makeTempDir({ prefix: "sluice-login-" });
      try {
        const help = await login(command, ["--help"]);
        assert.equal(help.code, 0, help.stderr);
        assert.match(help.stdout, /usage: sluice login <url> --db <file>/);
        assert.match(help.stdout, /--allow-loopback/);
        assert.match(help.stdout, /--port N/);
        assert.match(help.stdout, /openssl rand -base64 32/);

        const db = `${dir}/tokens.db`;
        const url = `http://127.0.0.1:${freePort()}/mcp`;
        for (
          const [key, said] of [
            [undefined, /SLUICE_TOKEN_KEY is not set/],
            ["not a key!", /SLUICE_TOKEN_KEY is not base64/],
            [btoa("short"), /SLUICE_TOKEN_KEY decodes to 5 bytes, not 32/],
          ] as const
        ) {
          const refused = await login(
            command,
            [url, "--db", db, "--allow-loopback"],
            key === undefined ? {} : { SLUICE_TOKEN_KEY: key },
          );
          assert.equal(refused.code, 2, `${key}: ${refused.stdout}${refused.stderr}`);
          assert.match(refused.stderr, said);
          assert.match(refused.stderr, /openssl rand -base64 32/);
          assert.ok(!refused.stderr.includes("    at "), `a stack trace:\n${refused.stderr}`);
          if (key !== undefined) assert.ok(!refused.stderr.includes(key), "the key is echoed");
        }
        await assertNoFiles(dir, "key refusals");

        const down = await login(command, [url, "--db", db, "--allow-loopback"], {
          SLUICE_TOKEN_KEY: KEY_TEXT,
        });
        assert.equal(down.code, 1, down.stdout + down.stderr);
        assert.match(down.stderr, /^refused: transport_failed: /m);
        assert.match(down.stderr, /^hint: .*check that the server is running/m);
        assert.ok(!down.stderr.includes("    at "), `a stack trace:\n${down.stderr}`);
        await assertNoFiles(dir, "an unreachable server");

        const loopback = await login(command, [url, "--db", db], { SLUICE_TOKEN_KEY: KEY_TEXT });
        assert.equal(loopback.code, 1, loopback.stdout + loopback.stderr);
        assert.match(loopback.stderr, /^refused: transport_scheme_refused: /m);
        assert.match(loopback.stderr, /^hint: .*--allow-loopback/m);
        await assertNoFiles(dir, "a loopback URL without --allow-loopback");

        const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
        try {
          const port = String((busy.addr as Deno.NetAddr).port);
          const taken = await login(
            command,
            [url, "--db", db, "--allow-loopback", "--port", port],
            {
              SLUICE_TOKEN_KEY: KEY_TEXT,
            },
          );
          assert.equal(taken.code, 1, taken.stdout + taken.stderr);
          assert.match(taken.stderr, /^refused: cli_login_listen_failed: .*EADDRINUSE/m);
        } finally {
          busy.close();
        }
        await assertNoFiles(dir, "a busy --port");
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    });
  });

  Deno.test({
    name: `sluice login on ${name}: a full sign-in in Chromium stores tokens a later process reads`,
    ignore: !browserTestsRun(),
    sanitizeOps: false,
    sanitizeResources: false,
  }, async () => {
    await withBuiltCli(async (built) => {
      const command = await launcher(built);
      await withOAuthWorld(async ({ mcp, browser }) => {
        const dir = await Deno.makeTempDir({ prefix: "sluice-login-full-" });
        try {
          const db = `${dir}/tokens.db`;
          // Interrupted while it waits for the browser (Ctrl-C): nothing was written.
          const interrupted = await startLogin(
            command,
            [mcp.url.href, "--db", db, "--allow-loopback"],
            { SLUICE_TOKEN_KEY: KEY_TEXT },
          );
          Deno.kill(interrupted.pid, "SIGINT");
          assert.notEqual((await interrupted.done).code, 0);
          await assertNoFiles(dir, "an interrupted login");
          const port = freePort();
          const running = await startLogin(
            command,
            [mcp.url.href, "--db", db, "--allow-loopback", "--port", String(port)],
            { SLUICE_TOKEN_KEY: KEY_TEXT },
          );
          const asked = new URL(running.authorizationUrl);
          assert.equal(asked.searchParams.get("redirect_uri"), `http://127.0.0.1:${port}/callback`);
          await authorizeInBrowser(browser, running.authorizationUrl, `operator-${name}`);
          const ended = await running.done;
          assert.equal(ended.code, 0, ended.stdout + ended.stderr);
          assert.match(ended.stdout, /tokens written to /);
          const store = await LibsqlTokenStore.open(db, { key: KEY });
          const tokens = (await store.get(`tokens ${mcp.url.href}`))!;
          store.close();
          assert.equal(typeof tokens.access_token, "string");
          assert.equal(typeof tokens.refresh_token, "string");
          for (const secret of [tokens.access_token, tokens.refresh_token] as string[]) {
            assert.ok(!(ended.stdout + ended.stderr).includes(secret), "a token was printed");
          }
        } finally {
          await Deno.remove(dir, { recursive: true });
        }
      });
    });
  });
}
