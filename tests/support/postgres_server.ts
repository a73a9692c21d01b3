/**
 * A real PostgreSQL server for tests: Debian's `postgresql` binaries, a cluster in a temp dir
 * owned by the `postgres` user (when running as root), listening on 127.0.0.1 on a free port of
 * its own, trust authentication. Stopped by its PID and its directory removed at the end.
 *
 * With no server binary the tests skip loudly, unless `CI` is set: then they fail, because CI
 * installs PostgreSQL (`.ci/run`).
 *
 * @module
 */
import { join } from "node:path";
import postgres from "postgres";
import { processAlive, processGone } from "../../fixtures/process.ts";

/** A running server. */
export interface PostgresServer {
  /** The postmaster's PID. */
  readonly pid: number;
  /** A URL of the server's `postgres` database, user `postgres`. */
  readonly adminUrl: string;
  /** The URL of database `name` on this server. */
  url(name: string): string;
  /**
   * A fresh, empty place for one store and its URL: a new schema of the shared test database,
   * named by the URL's `search_path` (much faster than a database per test).
   */
  createDatabase(): Promise<string>;
  /** Stops the server by PID (fast shutdown), waits until it is gone, removes its directory. */
  stop(): Promise<void>;
}

/** Where `initdb`, `pg_ctl` and `postgres` live, or `undefined`. */
export function postgresBinDir(): string | undefined {
  try {
    const versions = [...Deno.readDirSync("/usr/lib/postgresql")]
      .map((entry) => entry.name)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    for (const version of versions) {
      const bin = `/usr/lib/postgresql/${version}/bin`;
      try {
        Deno.statSync(join(bin, "postgres"));
        return bin;
      } catch {
        // Not this one.
      }
    }
  } catch {
    // No PostgreSQL installed.
  }
  return undefined;
}

/**
 * Whether the PostgreSQL tests can run. Prints a loud notice and returns `false` when no server
 * binary exists outside CI; throws in CI.
 */
export function postgresAvailable(): boolean {
  if (postgresBinDir() !== undefined) return true;
  if (Deno.env.get("CI") !== undefined && Deno.env.get("CI") !== "") {
    throw new Error("CI is set but no PostgreSQL server binary exists: .ci/run should install it");
  }
  console.error(
    "\n!!! SKIPPING the PostgreSQL store tests: no server binary in /usr/lib/postgresql/*/bin." +
      "\n!!! Install Debian's postgresql package (apt-get install -y postgresql) to run them.\n",
  );
  return false;
}

async function run(command: string, args: string[], asPostgres: boolean): Promise<string> {
  const root = Deno.uid?.() === 0;
  const output = await new Deno.Command(
    root && asPostgres ? "runuser" : command,
    {
      args: root && asPostgres ? ["-u", "postgres", "--", command, ...args] : args,
      stdout: "piped",
      stderr: "piped",
      stdin: "null",
    },
  ).output();
  const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  if (!output.success) throw new Error(`${command} failed: ${text}`);
  return text;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

const TEST_DATABASE = "sluice_tests";

/** Initializes and starts a server; the caller stops it. */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBinDir();
  if (bin === undefined) throw new Error("no PostgreSQL server binary");
  const dir = await Deno.makeTempDir({ prefix: "sluice-pg-" });
  const data = join(dir, "data");
  if (Deno.uid?.() === 0) {
    const postgresUser = await run("id", ["-u", "postgres"], false);
    const groupId = await run("id", ["-g", "postgres"], false);
    await Deno.chown(dir, Number(postgresUser.trim()), Number(groupId.trim()));
  }
  await run(join(bin, "initdb"), ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"], true);
  const port = freePort();
  // No fsync shortcuts: the store's durability is part of what is tested.
  await run(join(bin, "pg_ctl"), [
    "-D",
    data,
    "-w",
    "-l",
    join(dir, "log"),
    "-o",
    `-k ${dir} -h 127.0.0.1 -p ${port} -c max_connections=200`,
    "start",
  ], true);
  const pid = Number((await Deno.readTextFile(join(data, "postmaster.pid"))).split("\n")[0]);
  const url = (name: string) => `postgres://postgres@127.0.0.1:${port}/${name}`;
  const adminUrl = url("postgres");
  let stopped = false;
  let databases = 0;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    // SIGINT is PostgreSQL's fast shutdown: it ends sessions and checkpoints.
    if (await processAlive(pid)) Deno.kill(pid, "SIGINT");
    if (!await processGone(pid)) {
      Deno.kill(pid, "SIGKILL");
      await processGone(pid);
    }
    await Deno.remove(dir, { recursive: true });
  };
  // A run that skipped the test stopping it (a --filter, say) still stops the server and removes
  // its directory, synchronously, as the process unloads.
  globalThis.addEventListener("unload", () => {
    if (stopped) return;
    stopped = true;
    try {
      Deno.kill(pid, "SIGINT");
    } catch {
      // Already gone.
    }
    // The postmaster removes its pid file as its last act of a clean shutdown.
    const pause = new Int32Array(new SharedArrayBuffer(4));
    const running = () => {
      try {
        Deno.statSync(join(data, "postmaster.pid"));
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 100 && running(); i++) Atomics.wait(pause, 0, 0, 50);
    if (!running()) Deno.removeSync(dir, { recursive: true });
  });
  return {
    pid,
    adminUrl,
    url,
    async createDatabase() {
      const schema = `s_${++databases}`;
      const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
      try {
        if (databases === 1) await admin.unsafe(`CREATE DATABASE ${TEST_DATABASE}`);
      } finally {
        await admin.end({ timeout: 5 });
      }
      const tests = postgres(url(TEST_DATABASE), { max: 1, onnotice: () => {} });
      try {
        await tests.unsafe(`CREATE SCHEMA ${schema}`);
      } finally {
        await tests.end({ timeout: 5 });
      }
      return `${url(TEST_DATABASE)}?search_path=${schema}`;
    },
    stop,
  };
}
