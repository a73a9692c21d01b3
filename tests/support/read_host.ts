/**
 * Host-side helpers for the read-path suite: what a host does around `discoverTools` with a
 * fixture session (monitor wiring, bindings), plus an intercepting client wrapper that keeps
 * the raw results a real server sent so tests can mutate or alter them.
 *
 * @module
 */
import {
  CatalogMonitor,
  type DiscoverOptions,
  discoverTools,
  type DiscoveryResult,
  type ReadToolBinding,
  type ScopeValidator,
  type SdkClientLike,
} from "../../mod.ts";
import type { FixtureSession } from "./sessions.ts";

/** A read binding with a scope of `null` unless given. */
export function bind(
  localName: string,
  scope: ScopeValidator | null = null,
  concurrencySafe = false,
): ReadToolBinding {
  return {
    localName,
    policy: { mode: "read", title: `Title ${localName}` },
    scope,
    concurrencySafe,
  };
}

/** The fixture tools the suite binds, remote name → local name. */
export const CALL_TOOLS: Record<string, string> = {
  echo: "echo_text",
  add: "add_numbers",
  missing_structured: "missing_structured",
  invalid_structured: "invalid_structured",
  json_text: "json_text",
  image: "image",
  audio: "audio",
  resource_link: "resource_link",
  embedded_resource: "embedded_resource",
  is_error: "is_error",
  slow: "slow",
  oversized: "oversized",
  many_blocks: "many_blocks",
  throws: "throws",
  timeout_code: "timeout_code",
};

/** Bindings for {@link CALL_TOOLS}. */
export function callBindings(
  scopes: Record<string, ScopeValidator> = {},
): Record<string, ReadToolBinding> {
  const bindings: Record<string, ReadToolBinding> = {};
  for (const [remote, local] of Object.entries(CALL_TOOLS)) {
    bindings[remote] = bind(local, scopes[remote] ?? null);
  }
  return bindings;
}

/** A monitor wired the way a host wires it to this session (composing, not replacing). */
export function wireMonitor(
  session: FixtureSession,
): { monitor: CatalogMonitor; unwire: () => void } {
  const monitor = new CatalogMonitor();
  monitor.acceptProtocolVersion(session.protocolVersion);
  const unwire = session.onToolsListChanged(() =>
    monitor.handleNotification({ method: "notifications/tools/list_changed" })
  );
  return { monitor, unwire };
}

/** Discovers with a fresh monitor wired to the session. */
export async function discover(
  session: FixtureSession,
  bindings: Record<string, ReadToolBinding>,
  options: Omit<DiscoverOptions, "monitor"> & { monitor?: CatalogMonitor } = {},
): Promise<DiscoveryResult & { monitor: CatalogMonitor }> {
  const monitor = options.monitor ?? wireMonitor(session).monitor;
  const result = await discoverTools(session.client, "fixture", bindings, { ...options, monitor });
  return { ...result, monitor };
}

/**
 * Wraps a real SDK client: every raw result it returns is recorded (by reference) and may be
 * rewritten by `alter` first. Used to mutate what the server sent after discovery and to
 * simulate one changed keyword in transit; the server and client stay real.
 */
export function interceptingClient(
  client: SdkClientLike,
  alter: (method: string, result: unknown) => void = () => {},
): { client: SdkClientLike; results: unknown[] } {
  const results: unknown[] = [];
  const send = client.request.bind(client) as unknown as (
    request: { method: string },
    ...rest: unknown[]
  ) => Promise<unknown>;
  const wrapped = {
    request: async (request: { method: string }, ...rest: unknown[]) => {
      const result = await send(request, ...rest);
      alter(request.method, result);
      results.push(result);
      return result;
    },
    get transport() {
      return client.transport;
    },
  };
  return { client: wrapped as unknown as SdkClientLike, results };
}

/** `tools/call` log entries for `toolName`. */
export async function callsOf(session: FixtureSession, toolName: string): Promise<number> {
  return (await session.log()).filter((entry) =>
    entry.method === "tools/call" && entry.toolName === toolName
  ).length;
}
