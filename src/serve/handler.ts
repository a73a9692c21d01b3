/**
 * The governed MCP endpoint: a Web-standard handler that authenticates every request (a static
 * bearer token, or an OAuth JWT access token), then serves the toolkit's tools through the official v2 server SDK (2026-07-28, and the
 * stateless 2025 fallback). It lists only the tools the client may call, under their local names
 * and with their input schemas as sluice admitted them, and runs every call through
 * `toolkit.call` (so through the gate); what goes back is the envelope.
 *
 * @module
 */
import type { Toolkit } from "../connect/mod.ts";
import { Authenticator } from "./authenticate.ts";
import type { ServeClient } from "./clients.ts";
import { ServeError, type ServeErrorCode } from "./errors.ts";
import { emitServeEvent, type ServeEvent } from "./events.ts";
import type { ApprovalStore } from "../approvals/mod.ts";
import { GovernedTools, type ServedTaskSupport } from "./governed.ts";
import { type ServeLimits, serveLimits } from "./limits.ts";
import type { ServedToolNames } from "./names.ts";
import type { ServeOAuth } from "./oauth.ts";
import { RateLimiter } from "./rate.ts";
import { rateLimited } from "./refusal.ts";
import { serverSdk } from "./sdk.ts";
import type { InputRelay } from "./relay.ts";

/**
 * Options of {@link serveToolkit}.
 *
 * @category sluice serve
 */
export interface ServeToolkitOptions {
  /**
   * Who may call with a static bearer token: each client its own token and allowlist. At least
   * one, unless `oauth` is given.
   */
  readonly clients?: readonly ServeClient[];
  /**
   * Serve as an OAuth 2.1 protected resource: JWT access tokens of the configured issuer and
   * audience, each OAuth client with its own allowlist; the protected resource metadata is
   * served at its well-known path. Static `clients` may be given beside it.
   */
  readonly oauth?: ServeOAuth;
  /** Body cap, per-client concurrency and the shutdown wait; defaults in `DEFAULT_SERVE_LIMITS`. */
  readonly limits?: Partial<ServeLimits>;
  /**
   * Origins a browser-sent request may come from (`Origin` header, exactly as the browser sends
   * it). Default none: a request with an `Origin` is refused 403, against DNS rebinding.
   */
  readonly allowedOrigins?: readonly string[];
  /** The server's name and version in the MCP handshake. */
  readonly serverInfo?: { readonly name: string; readonly version: string };
  /**
   * The names clients see: `"local"` (default, `<server>__<tool>`) or `"remote"`, the upstream's
   * own (only when no two served tools share one: `serve_config_invalid` otherwise). Client
   * allowlists and events always use local names.
   */
  readonly toolNames?: ServedToolNames;
  /** Told of every refused request, tool list and call, naming the client. */
  readonly onEvent?: (event: ServeEvent) => void;
  /**
   * Served tools (local names) that run as MCP tasks: long-running reads the operator knows
   * take time. `"optional"`: a client that negotiated tasks (the 2026-07-28 Tasks extension, or
   * a 2025-11-25 task-augmented call) gets a task it polls, any other the plain result;
   * `"required"`: a 2026-07-28 client without the extension is refused (-32021). Such a task
   * lives in the process that runs it. Calls that need approval may always run as tasks, named
   * by their approval's id.
   */
  readonly taskTools?: Readonly<Record<string, ServedTaskSupport>>;
  /**
   * The approval store behind the toolkit (`serve()` passes it): a task another gateway made on
   * the same store is then found here, so any instance of a fleet answers `tasks/get`.
   */
  readonly taskStore?: ApprovalStore;
  /**
   * Relays the upstreams' requests for client input to the client of each call: give the
   * relay's `elicit` to the connection of `toolkit` (`serve()` does both). Without it, the
   * toolkit's own `elicit` handler (if any) answers, as for any connection.
   */
  readonly inputRelay?: InputRelay;
  /**
   * Task tools (local names) whose upstream asks for input before it starts its work: a
   * 2026-07-28 client that declared elicitation answers those rounds as `input_required`
   * results, and the call becomes a task on the round it answered.
   */
  readonly inputBeforeTask?: readonly string[];
}

/**
 * A running governed endpoint: mount `fetch` in `Deno.serve`, `Bun.serve`, a Worker or Node.
 *
 * @category sluice serve
 */
export interface ServeHandler {
  /** Serves one HTTP request (any path: the host routes). */
  readonly fetch: (request: Request) => Promise<Response>;
  /**
   * Stops taking requests (503 `serve_shutting_down`), lets calls in flight finish (aborting
   * them after `limits.shutdownTimeoutMs`, each still ending with its recorded outcome), then
   * closes the MCP handler. Does not close the toolkit's connection: its owner does.
   */
  close(): Promise<void>;
  /** How many tool calls are in flight now. */
  readonly inFlight: () => number;
  /** How many clients are configured (bearer-token and OAuth ones). */
  readonly clients: number;
  /**
   * Sends `notifications/tools/list_changed` to every open `subscriptions/listen` stream when
   * the toolkit's tools changed since the clients were last served (its connection accepted a
   * staged revision, or reconnected a failed server); returns whether they had. `serve()`'s
   * `accept` and `reconnect` call it; call it yourself after `connection.accept(...)` of a
   * toolkit you serve with `serveToolkit` (the next request would find it otherwise).
   */
  readonly toolsChanged: () => boolean;
}

/**
 * Serves `toolkit` as a governed MCP server over Streamable HTTP. Throws `serve_config_invalid`
 * for bad clients, limits or origins.
 *
 * @example
 * ```ts ignore
 * // Runs end to end in tests/serve/serve_test.ts.
 * import { connectAll } from "@sluice/mcp";
 * import { serveToolkit } from "@sluice/mcp/serve";
 *
 * const connection = await connectAll({ servers, allow, store });
 * const served = await serveToolkit(connection.toolkit, {
 *   clients: [{ name: "ide", token: Deno.env.get("IDE_TOKEN")! }],
 * });
 * Deno.serve({ hostname: "127.0.0.1", port: 8931 }, served.fetch);
 * ```
 *
 * @param toolkit the connection's toolkit (from `connect` or `connectAll`)
 * @param options clients, limits, origins, events
 *
 * @category sluice serve
 */
export async function serveToolkit(
  toolkit: Toolkit,
  options: ServeToolkitOptions,
): Promise<ServeHandler> {
  const auth = await Authenticator.of(options.clients, options.oauth);
  const limits = serveLimits(options.limits);
  const origins = new Set(originsOf(options.allowedOrigins));
  const byName = new Map(auth.clients.map((client) => [client.name, client]));
  const rate = limits.requestsPerMinute === undefined
    ? undefined
    : new RateLimiter(limits.requestsPerMinute, limits.burstRequests!);
  const governed = new GovernedTools(toolkit, {
    limits,
    ...(options.serverInfo ? { serverInfo: options.serverInfo } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.toolNames ? { toolNames: options.toolNames } : {}),
    ...(options.taskTools ? { taskTools: taskToolsOf(options.taskTools) } : {}),
    ...(options.taskStore ? { store: options.taskStore } : {}),
    ...(options.inputRelay ? { relay: options.inputRelay } : {}),
    ...(options.inputBeforeTask
      ? { inputBeforeTask: inputBeforeTaskOf(options.inputBeforeTask, options.taskTools) }
      : {}),
  });
  let closing = false;
  const { onEvent } = options;
  const refuse = (code: ServeErrorCode, status: number, client?: ServeClient, challenge?: string) =>
    refusal(onEvent, code, status, client, challenge);

  const mcp = serverSdk.createMcpHandler((ctx) => {
    const client = byName.get(ctx.authInfo?.clientId ?? "");
    // Only `fetch` below reaches this handler, always with an authenticated client.
    if (client === undefined) throw new Error("sluice serve: request without a client");
    return governed.server(client);
  }, { maxRequestBodySize: limits.maxBodyBytes, onerror: () => {} });
  governed.onToolsChanged(() => mcp.notify.toolsChanged());

  const fetch = async (request: Request): Promise<Response> => {
    if (closing) return refuse("serve_shutting_down", 503);
    governed.sync();
    const metadata = auth.metadata(request);
    if (metadata !== undefined) return metadata;
    const origin = request.headers.get("origin");
    if (origin !== null && !origins.has(origin)) return refuse("serve_origin_refused", 403);
    const { client, refusal: denied } = await auth.identify(request);
    if (denied !== undefined) {
      return refuse(denied.code, denied.status, undefined, denied.challenge);
    }
    const length = Number(request.headers.get("content-length") ?? "0");
    if (length > limits.maxBodyBytes) return refuse("serve_body_too_large", 413, client);
    const waitMs = rate?.take(client.name) ?? 0;
    if (waitMs > 0) {
      emitRefused(onEvent, "serve_rate_limited", 429, client);
      return await rateLimited(request, waitMs, length > 0);
    }
    const response = await mcp.fetch(request, {
      // The token stays here: the MCP layer only learns who is calling.
      authInfo: { token: "", clientId: client.name, scopes: [] },
    });
    if (response.status === 413) emitRefused(onEvent, "serve_body_too_large", 413, client);
    return response;
  };

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      closing = true;
      await governed.drain();
      // Let the last results' responses be written before the MCP handler lets go of them.
      await new Promise((resolve) => setTimeout(resolve, 0));
      await mcp.close();
    })();
    return closed;
  };

  return {
    fetch,
    close,
    clients: auth.clients.length,
    inFlight: () => governed.inFlight,
    toolsChanged: () => governed.sync(),
  };
}

function emitRefused(
  onEvent: ServeToolkitOptions["onEvent"],
  code: ServeErrorCode,
  status: number,
  client?: ServeClient,
): void {
  emitServeEvent(onEvent, {
    kind: "refused",
    errorCode: code,
    status,
    ...(client === undefined ? {} : { client: client.name }),
  });
}

/** A refused request: the event, and a small JSON body naming the code. */
function refusal(
  onEvent: ServeToolkitOptions["onEvent"],
  code: ServeErrorCode,
  status: number,
  client: ServeClient | undefined,
  challenge: string | undefined,
): Response {
  emitRefused(onEvent, code, status, client);
  const headers = new Headers({ "content-type": "application/json" });
  if (challenge !== undefined) headers.set("www-authenticate", challenge);
  if (status === 503) headers.set("retry-after", "1");
  return new Response(JSON.stringify({ error: code }), { status, headers });
}

function taskToolsOf(
  taskTools: Readonly<Record<string, ServedTaskSupport>>,
): Readonly<Record<string, ServedTaskSupport>> {
  const entries = typeof taskTools === "object" && taskTools !== null && !Array.isArray(taskTools)
    ? Object.entries(taskTools)
    : undefined;
  if (
    entries === undefined || entries.some(([, mode]) => mode !== "optional" && mode !== "required")
  ) {
    throw new ServeError(
      "serve_config_invalid",
      'sluice serve: taskTools maps local tool names to "optional" or "required"',
    );
  }
  return Object.freeze(Object.fromEntries(entries));
}

/** Every `inputBeforeTask` entry must be one of the task tools. */
function inputBeforeTaskOf(
  names: readonly string[],
  taskTools: Readonly<Record<string, ServedTaskSupport>> | undefined,
): readonly string[] {
  if (
    !Array.isArray(names) ||
    names.some((name) => typeof name !== "string" || taskTools?.[name] === undefined)
  ) {
    throw new ServeError(
      "serve_config_invalid",
      "sluice serve: inputBeforeTask lists task tools (local names that taskTools names)",
    );
  }
  return Object.freeze([...names]);
}

function originsOf(origins: readonly string[] | undefined): readonly string[] {
  if (origins === undefined) return [];
  if (!Array.isArray(origins) || origins.some((origin) => typeof origin !== "string")) {
    throw new ServeError("serve_config_invalid", "sluice serve: allowedOrigins must be strings");
  }
  return origins;
}
