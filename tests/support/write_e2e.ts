/**
 * Driving `tests/support/write_host.ts` and the approvals CLI as real subprocesses: spawn,
 * read JSON lines with bounded waits, stop by PID.
 *
 * @module
 */
import { PROJECT_ROOT } from "../../fixtures/write_server_launch.ts";

/** The host script. */
export const HOST_SCRIPT = new URL("./write_host.ts", import.meta.url).pathname;
/** The people's CLI script. */
export const CLI_SCRIPT = new URL("../../cli.ts", import.meta.url).pathname;

/** One JSON line a host printed. */
export type HostLine = Record<string, unknown> & { event: string };

/** A running host process. */
export interface HostProcess {
  /** The host's PID. */
  readonly pid: number;
  /** Every line read so far. */
  readonly lines: HostLine[];
  /** Waits (bounded) for the next unread line matching `event`; throws on timeout or exit. */
  next(event: string, timeoutMs?: number): Promise<HostLine>;
  /** Sends one command line (serve mode). */
  send(line: string): Promise<void>;
  /** Closes stdin (serve mode ends), waits for exit; kills after `timeoutMs`. */
  finish(timeoutMs?: number): Promise<Deno.CommandStatus>;
}

/**
 * The write host's arguments for one call: approval store, server workspace, scenario, run and
 * call ids (`call-1`) and the ledger key.
 */
export function hostArgs(
  db: string,
  ws: { dir: string; ledger: string },
  scenario: string,
  runId: string,
  key: string,
): string[] {
  return [
    "--db",
    db,
    "--dir",
    ws.dir,
    "--ledger",
    ws.ledger,
    "--scenario",
    scenario,
    "--run-id",
    runId,
    "--call-id",
    "call-1",
    "--key",
    key,
  ];
}

/** Starts `write_host.ts` with `args`; stdin is piped only for `--serve`. */
export function startHost(args: string[]): HostProcess {
  const serve = args.includes("--serve");
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", HOST_SCRIPT, ...args],
    cwd: PROJECT_ROOT,
    stdin: serve ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: HostLine[] = [];
  let cursor = 0;
  let ended = false;
  let wake: (() => void) | undefined;
  const stderr = new Response(child.stderr).text();
  const pump = (async () => {
    let buffered = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buffered += chunk;
      let newline: number;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        const text = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        try {
          lines.push(JSON.parse(text));
        } catch {
          lines.push({ event: "noise", text });
        }
        wake?.();
      }
    }
    ended = true;
    wake?.();
  })();
  const writer = serve ? child.stdin.getWriter() : undefined;
  return {
    pid: child.pid,
    lines,
    async next(event, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        while (cursor < lines.length) {
          const line = lines[cursor++];
          if (line.event === event) return line;
        }
        if (ended) {
          throw new Error(`host ended before "${event}": ${await stderr}`);
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no "${event}" line within ${timeoutMs} ms`);
        let timer: ReturnType<typeof setTimeout> | undefined;
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, left);
        });
        clearTimeout(timer);
        wake = undefined;
      }
    },
    async send(line) {
      await writer!.write(new TextEncoder().encode(line + "\n"));
    },
    async finish(timeoutMs = 30_000) {
      if (writer) await writer.close().catch(() => undefined);
      const timer = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch {
          // Already gone.
        }
      }, timeoutMs);
      try {
        const status = await child.status;
        await pump;
        await stderr;
        return status;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Runs the approvals CLI in its own process; returns its exit code and output. */
export async function cli(args: string[]): Promise<{ code: number; stdout: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", CLI_SCRIPT, "approvals", ...args],
    cwd: PROJECT_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: output.code, stdout: new TextDecoder().decode(output.stdout) };
}

/** The envelope of a host `envelope` line. */
export function envelopeOf(line: HostLine): {
  errorCode?: string;
  effect?: string;
  approvalId?: string;
  receipt?: { resultDigest: string; at: number };
  text?: string[];
  structured?: unknown;
} {
  return line.envelope as ReturnType<typeof envelopeOf>;
}

/** The envelope shape of a host `envelope` line. */
export type HostEnvelope = ReturnType<typeof envelopeOf>;

/**
 * One host run that prints a single envelope (a replay, or `--resume`): its write server's PID
 * and that envelope, after `done` and a clean exit (asserted).
 */
export async function hostEnvelope(
  args: string[],
): Promise<{ serverPid: number; envelope: HostEnvelope }> {
  const host = startHost(args);
  let status: Deno.CommandStatus;
  let result: { serverPid: number; envelope: HostEnvelope };
  try {
    const serverPid = (await host.next("server")).pid as number;
    const envelope = envelopeOf(await host.next("envelope"));
    await host.next("done");
    result = { serverPid, envelope };
  } finally {
    status = await host.finish();
  }
  if (status.code !== 0) throw new Error(`host exited with ${status.code}`);
  return result;
}

/**
 * A deferred write end to end: the host's call ends `approval_pending` (asserted, effect
 * `not_started`); `beforeApproval` checks that nothing was written yet; a person approves it
 * FROM ANOTHER PROCESS with the CLI; the host sees the decision, resumes and prints the final
 * envelope, then exits cleanly (asserted).
 *
 * @param args the host's arguments (one call, deferred)
 * @param db the approval database
 * @param by who approves
 * @param beforeApproval the caller's checks while the call is pending
 */
export async function approvedFromCli(
  args: string[],
  db: string,
  by: string,
  beforeApproval: () => Promise<void>,
): Promise<{ serverPid: number; approvalId: string; final: HostEnvelope }> {
  const host = startHost(args);
  let status: Deno.CommandStatus;
  let result: { serverPid: number; approvalId: string; final: HostEnvelope };
  try {
    const serverPid = (await host.next("server")).pid as number;
    const pending = envelopeOf(await host.next("envelope"));
    if (pending.errorCode !== "approval_pending" || pending.effect !== "not_started") {
      throw new Error(`expected a pending, not started call: ${JSON.stringify(pending)}`);
    }
    const approvalId = pending.approvalId!;
    await beforeApproval();
    const approved = await cli(["approve", approvalId, "--db", db, "--by", by]);
    if (approved.code !== 0) throw new Error(`approve exited ${approved.code}: ${approved.stdout}`);
    const decided = await host.next("decided");
    if (decided.state !== "approved") throw new Error(`decided: ${decided.state}`);
    const final = envelopeOf(await host.next("envelope"));
    await host.next("done");
    result = { serverPid, approvalId, final };
  } finally {
    status = await host.finish();
  }
  if (status.code !== 0) throw new Error(`host exited with ${status.code}`);
  return result;
}
