/**
 * Runtime shim: child processes on Node and Bun through `node:child_process`, obtained with
 * `process.getBuiltinModule` (no import, so no other runtime's bundle holds it): exactly the
 * given environment, `shell: false`, and `detached` so the child leads its own process group,
 * which `kill` signals whole.
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

interface NodeStream {
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  on(event: "error" | "end", listener: () => void): unknown;
}
interface NodeWritable {
  write(chunk: Uint8Array, callback: (error?: Error | null) => void): boolean;
  end(): void;
  on(event: "error", listener: () => void): unknown;
}
interface NodeChild {
  readonly pid?: number;
  readonly stdin: NodeWritable;
  readonly stdout: NodeStream;
  readonly stderr: NodeStream;
  kill(signal?: string): boolean;
  once(event: "spawn", listener: () => void): unknown;
  once(event: "error", listener: (error: { code?: string }) => void): unknown;
  once(event: "exit", listener: (code: number | null, signal: string | null) => void): unknown;
}
interface NodeChildProcess {
  spawn(command: string, args: string[], options: Record<string, unknown>): NodeChild;
}
interface NodeProcess {
  readonly platform: string;
  readonly env: Record<string, string | undefined>;
  getBuiltinModule(id: string): unknown;
  kill(pid: number, signal: string): void;
}

function failureOf(error: { code?: string }): SpawnError {
  return new SpawnError(
    error.code === "ENOENT" ? "not_found" : error.code === "EACCES" ? "permission" : "failed",
    error,
  );
}

function spawnNode(
  node: NodeProcess,
  childProcess: NodeChildProcess,
  spec: ProcessSpec,
  listener: ProcessListener,
): Promise<ChildProcessHandle> {
  const posix = node.platform !== "win32";
  let child: NodeChild;
  try {
    child = childProcess.spawn(spec.command, [...spec.args], {
      env: { ...spec.env },
      ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
      stdio: ["pipe", "pipe", "pipe"],
      shell: false,
      windowsHide: true,
      detached: posix,
    });
  } catch (error) {
    return Promise.reject(failureOf(error as { code?: string }));
  }
  return new Promise((resolve, reject) => {
    child.once("error", (error) => reject(failureOf(error)));
    child.once("spawn", () => {
      const pid = child.pid!;
      child.stdin.on("error", () => {});
      child.stdout.on("error", () => {});
      child.stderr.on("error", () => {});
      child.stdout.on("data", listener.stdout);
      child.stdout.on("end", () => listener.stdoutEnd());
      child.stderr.on("data", listener.stderr);
      child.once("exit", (code, signal) => listener.exit({ code, signal }));
      resolve({
        pid,
        write: (bytes) =>
          new Promise<void>((done, fail) =>
            child.stdin.write(bytes, (error) => error ? fail(error) : done())
          ),
        endInput: () => child.stdin.end(),
        kill: (signal) => {
          try {
            if (posix) node.kill(-pid, signal);
            else child.kill(signal);
          } catch {
            // Already gone.
          }
        },
      });
    });
  });
}

/**
 * The spawner of Node or Bun, or `undefined` where `process.getBuiltinModule` does not give
 * `node:child_process` (Workers, browsers).
 *
 * @returns the spawner, or `undefined`
 */
export function nodeSpawner(): Spawner | undefined {
  const node = (globalThis as { process?: Partial<NodeProcess> }).process;
  if (typeof node?.getBuiltinModule !== "function") return undefined;
  let childProcess: NodeChildProcess | undefined;
  try {
    childProcess = node.getBuiltinModule("node:child_process") as NodeChildProcess | undefined;
  } catch {
    return undefined;
  }
  if (typeof childProcess?.spawn !== "function") return undefined;
  const api = node as NodeProcess;
  const spawner = childProcess;
  return {
    runtime: "node",
    hostEnv: (name) => api.env[name],
    spawn: (spec, listener) => spawnNode(api, spawner, spec, listener),
  };
}
