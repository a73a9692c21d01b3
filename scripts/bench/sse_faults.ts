/**
 * How fast a hostile SSE reply fails, measured from its offending bytes: the figures that
 * tests/transport/sse_reply_test.ts used to assert as a 50 ms bound (the test now proves
 * "fails on the bytes, not at the deadline" by the failure's code under a 60 s deadline).
 *
 * Cases, each on a server that keeps the stream open after the bad bytes
 * (`fixtures/hostile_sse.ts`): an SSE reply over the 16 KiB cap, and an event that is not
 * JSON; for a toolkit call (one connection per case, one call per round) and for discovery (a
 * fresh `connect()` per round), on both protocol eras (2025-11-25 against a scripted server,
 * 2026-07-28 through a proxy in front of the real fixture server). Baseline: a plain
 * `secureFetch` of the same body (refusing the over-cap one; reading the not-JSON one until the
 * bad event arrives). Every round runs each path once, in an order that rotates; a path's figure
 * is the ms from `written` (right after the last part was enqueued) to the failure, reported as
 * the median and the range over the rounds.
 *
 * `deno task bench sse_faults` runs it.
 *
 * @module
 */
import { connect, ConnectError, secureFetch, TransportError } from "../../mod.ts";
import { tool } from "../../fixtures/connect_servers.ts";
import {
  type Era,
  hostileParts,
  hostileServer,
  type HostileTarget,
  type Hostility,
  type SseReply,
  sseReply,
} from "../../fixtures/hostile_sse.ts";
import { type Benchmark, type BenchRow, median } from "./types.ts";

const CAP = 16 * 1024;
/** Far longer than any failure takes: a path that waited for it would stand out at once. */
const DEADLINE_MS = 60_000;
const ROUNDS = 20;
const WARMUP = 2;
const ERAS: readonly Era[] = ["2025-11-25", "2026-07-28"];
const HOSTILITIES: readonly Hostility[] = ["too large", "not json"];
const EXPECTED: Record<Hostility, string> = {
  "too large": "transport_response_too_large",
  "not json": "mcp_protocol_error",
};

const OPTIONS = {
  id: "h",
  allow: ["echo"],
  preApproved: ["echo"],
  limits: { timeoutMs: DEADLINE_MS },
  transport: { dangerouslyAllowLoopback: true, timeoutMs: DEADLINE_MS, maxResponseBytes: CAP },
} as const;

/** One measured path: `once()` returns the ms from the offending bytes to the failure. */
interface Path {
  readonly label: string;
  once(): Promise<number>;
  close(): Promise<void>;
}

/** Replies answered by one server, the latest last. */
function recorder(hostility: Hostility, value: unknown, hold: AbortSignal) {
  let latest: SseReply | undefined;
  return {
    answer: (request: { id: unknown }) =>
      latest = sseReply(hostileParts(hostility, request.id, value, CAP), hold),
    written: () => latest!.written,
  };
}

function expectCode(label: string, actual: string | undefined, expected: string): void {
  if (actual !== expected) throw new Error(`${label}: ended with ${actual}, not ${expected}`);
}

async function callPath(era: Era, hostility: Hostility, hold: AbortSignal): Promise<Path> {
  const label = `${era} call, ${hostility}`;
  const replies = recorder(hostility, { content: [{ type: "text", text: "ok" }] }, hold);
  const server = await hostileServer(era, "tools/call", replies.answer);
  const connection = await connect(server.url, OPTIONS);
  const args = era === "2025-11-25" ? {} : { message: "hi" };
  return {
    label,
    async once() {
      const envelope = await connection.toolkit.call("h__echo", args);
      const end = performance.now();
      expectCode(label, envelope.errorCode, EXPECTED[hostility]);
      return end - await replies.written();
    },
    async close() {
      await connection.close();
      await server.close();
    },
  };
}

async function discoveryPath(era: Era, hostility: Hostility, hold: AbortSignal): Promise<Path> {
  const label = `${era} discovery, ${hostility}`;
  const replies = recorder(hostility, { tools: [tool("echo")] }, hold);
  const server: HostileTarget = await hostileServer(era, "tools/list", replies.answer);
  return {
    label,
    async once() {
      // The server fails discovery: connect() rejects with its code.
      const code = await connect(server.url, OPTIONS).then(
        async (connection) => {
          await connection.close();
          return undefined;
        },
        (error: unknown) => error instanceof ConnectError ? error.code : String(error),
      );
      const end = performance.now();
      expectCode(label, code, EXPECTED[hostility]);
      return end - await replies.written();
    },
    close: () => server.close(),
  };
}

function baselinePath(hostility: Hostility, hold: AbortSignal): Path {
  const label = `baseline: secureFetch of the same body, ${hostility}`;
  const replies = recorder(hostility, { content: [] }, hold);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => replies.answer({ id: 1 }).response,
  );
  const url = `http://127.0.0.1:${server.addr.port}/`;
  const fetchFn = secureFetch(OPTIONS.transport);
  return {
    label,
    async once() {
      const response = await fetchFn(url);
      let end: number;
      if (hostility === "too large") {
        let code: string | undefined;
        try {
          await response.text();
        } catch (error) {
          code = error instanceof TransportError ? error.code : String(error);
        }
        end = performance.now();
        expectCode(label, code, EXPECTED[hostility]);
      } else {
        // The body is fine for the transport: the figure is when the bad event arrives.
        const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
        let text = "";
        while (!text.includes("not json")) {
          const { done, value } = await reader.read();
          if (done) throw new Error(`${label}: the body ended early`);
          text += value;
        }
        end = performance.now();
        await reader.cancel();
      }
      return end - await replies.written();
    },
    close: () => server.shutdown(),
  };
}

/** Runs every path `WARMUP + ROUNDS` times, interleaved and rotating; returns its rows. */
export async function measureSseFaults(rounds = ROUNDS, warmup = WARMUP): Promise<BenchRow[]> {
  const hold = new AbortController();
  const paths: Path[] = [];
  try {
    for (const hostility of HOSTILITIES) {
      for (const era of ERAS) {
        paths.push(await callPath(era, hostility, hold.signal));
        paths.push(await discoveryPath(era, hostility, hold.signal));
      }
      paths.push(baselinePath(hostility, hold.signal));
    }
    const samples = paths.map(() => [] as number[]);
    for (let round = 0; round < warmup + rounds; round++) {
      for (let turn = 0; turn < paths.length; turn++) {
        const index = (round + turn) % paths.length;
        const ms = await paths[index].once();
        if (round >= warmup) samples[index].push(ms);
      }
    }
    return paths.map((path, index) => {
      const values = samples[index];
      const range = `${Math.min(...values).toFixed(1)}-${Math.max(...values).toFixed(1)}`;
      return {
        kind: "figure" as const,
        name: `${path.label}: bytes to failure, median (range ${range})`,
        value: median(values),
        unit: "ms",
      };
    });
  } finally {
    hold.abort();
    for (const path of paths) await path.close();
  }
}

/** The registered benchmark. */
export const sseFaultsBenchmark: Benchmark = {
  name: "sse_faults",
  describe: () =>
    `ms from a hostile SSE reply's offending bytes to the failure (16 KiB cap, 60 s deadline), ` +
    `call and discovery, both eras, vs a plain secureFetch; ${ROUNDS} interleaved rounds`,
  run: () => measureSseFaults(),
};
