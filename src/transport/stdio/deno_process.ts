/**
 * Runtime shim: child processes on Deno through `Deno.Command` (found by feature detection, no
 * `Deno` namespace types): an empty environment plus exactly the given variables (`clearEnv`),
 * no shell, and `detached` so the child leads its own process group, which `kill` signals whole.
 *
 * @module
 */
import {
  type ChildProcessHandle,
  type ProcessListener,
  type ProcessSpec,
  type Spawner,
  SpawnError,
} from "./spawn_types.ts";

interface DenoChild {
  readonly pid: number;
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly status: Promise<{ code: number; signal: string | null }>;
  kill(signal?: string): void;
}
interface DenoProcessApi {
  Command: new (command: string, options: Record<string, unknown>) => { spawn(): DenoChild };
  kill(pid: number, signal: string): void;
  env: { get(name: string): string | undefined };
  build: { os: string };
}

/** Reads `stream` to its end into `sink`; a read error ends it quietly. */
async function pump(stream: ReadableStream<Uint8Array>, sink: (chunk: Uint8Array) => void) {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      sink(value);
    }
  } catch {
    // The pipe broke: the exit status says what happened.
  } finally {
    reader.releaseLock();
  }
}

function failureOf(error: unknown): SpawnError {
  const name = (error as { name?: unknown })?.name;
  return new SpawnError(
    name === "NotFound"
      ? "not_found"
      : name === "NotCapable" || name === "PermissionDenied"
      ? "permission"
      : "failed",
    error,
  );
}

function spawnDeno(
  deno: DenoProcessApi,
  spec: ProcessSpec,
  listener: ProcessListener,
): ChildProcessHandle {
  const posix = deno.build.os !== "windows";
  let child: DenoChild;
  try {
    child = new deno.Command(spec.command, {
      args: [...spec.args],
      env: { ...spec.env },
      clearEnv: true,
      ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      detached: posix,
    }).spawn();
  } catch (error) {
    throw failureOf(error);
  }
  const writer = child.stdin.getWriter();
  const reading = Promise.all([
    pump(child.stdout, listener.stdout).then(() => listener.stdoutEnd()),
    pump(child.stderr, listener.stderr),
  ]);
  child.status.then(
    (status) =>
      listener.exit({ code: status.signal === null ? status.code : null, signal: status.signal }),
    () => listener.exit({ code: null, signal: null }),
  );
  reading.catch(() => {});
  return {
    pid: child.pid,
    write: (bytes) => writer.write(bytes),
    endInput: () => {
      writer.close().catch(() => {});
    },
    kill: (signal) => {
      try {
        if (posix) deno.kill(-child.pid, signal);
        else child.kill(signal);
      } catch {
        // Already gone.
      }
    },
  };
}

/**
 * Deno's spawner, or `undefined` when not running on Deno.
 *
 * @returns the spawner, or `undefined`
 */
export function denoSpawner(): Spawner | undefined {
  const deno = (globalThis as { Deno?: Partial<DenoProcessApi> }).Deno;
  if (
    deno === undefined || typeof deno.Command !== "function" || typeof deno.kill !== "function"
  ) return undefined;
  const api = deno as DenoProcessApi;
  return {
    runtime: "deno",
    hostEnv: (name) => {
      try {
        return api.env.get(name);
      } catch {
        return undefined;
      }
    },
    spawn: (spec, listener) => {
      try {
        return Promise.resolve(spawnDeno(api, spec, listener));
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
}
