/**
 * sluice's stdio transport for the official SDK `Client`: one child process (no shell, exactly
 * the environment given, its own process group), newline-delimited JSON-RPC on its stdin and
 * stdout with a cap per frame and per message, its stderr kept bounded for the operator, and
 * the whole process group ended on `close()`, when the server breaks the framing, when it exits,
 * and when the host exits.
 *
 * @module
 */
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { guardUntilExit } from "./exit_guard.ts";
import { FrameReader } from "./frames.ts";
import type { ChildProcessHandle, ExitStatus, ProcessSpec, Spawner } from "./spawn_types.ts";
import { StderrTail } from "./stderr_tail.ts";
import { describeExit, StdioError, type StdioErrorCode } from "./stdio_error.ts";

/**
 * The JSON-RPC error code of the error response the transport puts in place of a response over
 * the message cap (its `data` carries the transport's nonce, so a server cannot forge it).
 */
export const OVERSIZED_RESPONSE_CODE = -32099;

/** How long the streams may still deliver after the process exited. */
const DRAIN_AFTER_EXIT_MS = 200;

/** What one stdio transport runs and how it is bounded. */
export interface StdioTransportOptions {
  readonly spec: ProcessSpec;
  readonly spawner: Spawner;
  /** The most bytes of one stdout line; past it the server is ended. */
  readonly maxFrameBytes: number;
  /** The most bytes of one message; a response past it fails its request only. */
  readonly maxMessageBytes: number;
  /** The most bytes of stderr kept (the tail). */
  readonly maxStderrBytes: number;
  /** How long `close()` waits after closing stdin, and again after SIGTERM. */
  readonly closeTimeoutMs: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

function isMessage(value: unknown): value is JSONRPCMessage {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    (value as { jsonrpc?: unknown }).jsonrpc === "2.0";
}

/** One stdio server process as an SDK `Transport`. */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Marks the error responses this transport writes itself (never sent to the server). */
  readonly nonce: string = crypto.randomUUID();
  readonly #options: StdioTransportOptions;
  readonly #frames: FrameReader;
  readonly #stderr: StderrTail;
  #child: ChildProcessHandle | undefined;
  #unguard: () => void = () => {};
  #failure: StdioError | undefined;
  #exit: ExitStatus | undefined;
  #exited: Promise<void>;
  #markExited: () => void = () => {};
  #stdoutEnded = false;
  /** `close()` began, or the transport ended by itself. */
  #closed = false;
  /** The server broke the framing: nothing more it writes is read. */
  #broken = false;
  /** `onclose` was called. */
  #ended = false;
  /** Complete lines read and not yet handed on, in order (from `#next`). */
  #lines: Uint8Array[] = [];
  #next = 0;
  #draining = false;

  /**
   * Creates the transport; the process starts with `start()` (the SDK's `connect` calls it).
   *
   * @param options the command, the spawner and the bounds
   */
  constructor(options: StdioTransportOptions) {
    this.#options = options;
    this.#frames = new FrameReader(options.maxFrameBytes);
    this.#stderr = new StderrTail(options.maxStderrBytes);
    this.#exited = new Promise((resolve) => this.#markExited = resolve);
  }

  /** The server's process id, once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** How the server ended, once it did. */
  get exitStatus(): ExitStatus | undefined {
    return this.#exit;
  }

  /** Why the transport ended by itself (not by `close()`), if it did. */
  get failure(): StdioError | undefined {
    return this.#failure;
  }

  /** The escaped, bounded tail of the server's stderr. */
  stderrTail(): string {
    return this.#stderr.text();
  }

  /** Every byte the server wrote to stderr. */
  get stderrBytes(): number {
    return this.#stderr.totalBytes;
  }

  /** Starts the server process. Rejects with a {@link StdioError} (`stdio_spawn_failed`). */
  async start(): Promise<void> {
    if (this.#child !== undefined || this.#closed) throw this.#error("stdio_spawn_failed");
    try {
      this.#child = await this.#options.spawner.spawn(this.#options.spec, {
        stdout: (chunk) => this.#onStdout(chunk),
        stdoutEnd: () => {
          this.#stdoutEnded = true;
          if (this.#exit !== undefined) this.#finish();
        },
        stderr: (chunk) => this.#stderr.push(chunk),
        exit: (status) => this.#onExit(status),
      });
    } catch (error) {
      const reason = (error as { reason?: string }).reason ?? "failed";
      const spawnError = new StdioError(
        "stdio_spawn_failed",
        reason === "not_found"
          ? "the stdio server's command was not found"
          : reason === "permission"
          ? "the runtime refused to run the stdio server's command (Deno: --allow-run for it)"
          : "the stdio server's command could not be started",
      );
      this.#closed = true;
      this.#markExited();
      throw Object.assign(spawnError, { cause: error });
    }
    if (this.#exit === undefined) this.#unguard = guardUntilExit(this.#child);
  }

  /**
   * Writes one message as a line. Rejects with the transport's failure once it ended.
   *
   * @param message a JSON-RPC message
   */
  async send(message: JSONRPCMessage): Promise<void> {
    const child = this.#child;
    if (child === undefined || this.#closed || this.#exit !== undefined) {
      throw this.#failure ?? this.#error("stdio_server_exited");
    }
    try {
      await child.write(encoder.encode(JSON.stringify(message) + "\n"));
    } catch {
      throw this.#failure ?? this.#error("stdio_server_exited");
    }
  }

  /**
   * Ends the server: closes its stdin, waits `closeTimeoutMs`, sends SIGTERM to its process
   * group, waits again, then SIGKILL; its group gets SIGKILL once it exited, for any children
   * it left. Idempotent.
   */
  async close(): Promise<void> {
    if (this.#closed) {
      await this.#exitWithin(this.#options.closeTimeoutMs);
      return this.#finish();
    }
    this.#closed = true;
    const child = this.#child;
    if (child !== undefined && this.#exit === undefined) {
      child.endInput();
      if (!(await this.#exitWithin(this.#options.closeTimeoutMs))) {
        child.kill("SIGTERM");
        if (!(await this.#exitWithin(this.#options.closeTimeoutMs))) {
          child.kill("SIGKILL");
          await this.#exitWithin(this.#options.closeTimeoutMs);
        }
      }
    }
    this.#finish();
  }

  #exitWithin(ms: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    return Promise.race([
      this.#exited.then(() => true),
      new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), ms)),
    ]).finally(() => clearTimeout(timer));
  }

  #error(code: StdioErrorCode | "transport_response_too_large", message?: string): StdioError {
    const text = message ??
      (this.#exit !== undefined
        ? `the stdio server ${describeExit(this.#exit)}`
        : "the stdio server is not running");
    return new StdioError(code, text, {
      ...(this.#exit !== undefined ? { exit: this.#exit } : {}),
      stderr: this.#stderr.text(),
    });
  }

  #onStdout(chunk: Uint8Array): void {
    if (this.#broken || this.#ended) return;
    const lines = this.#frames.push(chunk);
    if (lines === "too_large") {
      return this.#fail(this.#error(
        "stdio_frame_too_large",
        `the stdio server wrote a line over ${this.#options.maxFrameBytes} bytes`,
      ));
    }
    if (lines.length === 0) return;
    for (const line of lines) this.#lines.push(line);
    if (!this.#draining) void this.#drain();
  }

  /**
   * Hands the lines read on, in order. The v2 SDK settles a response the moment it gets it but
   * runs a notification's handler one microtask later (`Promise.resolve().then`), so after a
   * notification the next message waits for that turn. Handed on in one synchronous loop, a
   * call's last progress steps written in the same chunk as its answer would find the call's
   * progress handler already removed by the answer. Only microtasks are awaited: the lines of a
   * chunk are all handed on before any other event (the server's exit) is taken.
   */
  async #drain(): Promise<void> {
    this.#draining = true;
    while (this.#next < this.#lines.length && !this.#broken && !this.#ended) {
      const line = this.#lines[this.#next++];
      if (this.#onLine(line) && this.#next < this.#lines.length) await Promise.resolve();
    }
    this.#lines = [];
    this.#next = 0;
    this.#draining = false;
  }

  /** Hands one line on; returns whether it was a notification (what the SDK defers). */
  #onLine(line: Uint8Array): boolean {
    let value: unknown;
    try {
      const text = decoder.decode(line);
      if (text.trim() === "") return false;
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    if (!isMessage(value)) {
      this.#fail(this.#error(
        "stdio_invalid_message",
        "the stdio server wrote a line on stdout that is not a JSON-RPC message",
      ));
      return false;
    }
    if (line.length > this.#options.maxMessageBytes) {
      this.#oversized(value);
      return false;
    }
    this.onmessage?.(value);
    return "method" in value && !("id" in value);
  }

  /** A message over the message cap: a response fails its request; anything else is dropped. */
  #oversized(message: JSONRPCMessage): void {
    const id = (message as { id?: unknown }).id;
    const isResponse = "result" in message || "error" in message;
    this.onerror?.(this.#error(
      "transport_response_too_large",
      `the stdio server sent a message over ${this.#options.maxMessageBytes} bytes`,
    ));
    if (!isResponse || (typeof id !== "string" && typeof id !== "number")) return;
    this.onmessage?.({
      jsonrpc: "2.0",
      id,
      error: {
        code: OVERSIZED_RESPONSE_CODE,
        message: "sluice: the response is over the message byte cap",
        data: { sluiceStdio: this.nonce },
      },
    } as JSONRPCMessage);
  }

  #fail(error: StdioError): void {
    if (this.#broken) return;
    this.#broken = true;
    this.#failure ??= error;
    this.#child?.kill("SIGKILL");
    this.onerror?.(error);
    this.#finish();
  }

  #onExit(status: ExitStatus): void {
    this.#exit = status;
    this.#unguard();
    // Children it left in its group end with it.
    this.#child?.kill("SIGKILL");
    this.#markExited();
    if (!this.#closed && this.#failure === undefined) {
      this.#failure = this.#error("stdio_server_exited");
    }
    if (this.#stdoutEnded) this.#finish();
    else setTimeout(() => this.#finish(), DRAIN_AFTER_EXIT_MS);
  }

  #finish(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#closed = true;
    this.onclose?.();
  }
}
