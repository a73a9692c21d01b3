/**
 * Each server's tool-poisoning screen from a `connectAll` configuration: the server's policy,
 * the per-tool ones (`screenTools`), and what the screen compares names against.
 *
 * @module
 */
import {
  DEFAULT_SCREEN_POLICY,
  type DiscoveryScreen,
  type ResolvedScreenPolicy,
  resolveScreenPolicy,
  type ScreenPolicy,
} from "../catalog/screening.ts";
import { invalid, parseEntry } from "./config_entries.ts";
import { ConnectConfigError } from "./errors.ts";

/** The screen policy at `field`, checked (a `ConnectConfigError` names the field). */
function screenPolicyOf(
  value: unknown,
  base: ResolvedScreenPolicy | null | undefined,
  field: string,
): ResolvedScreenPolicy | null {
  try {
    return resolveScreenPolicy(value, base === undefined ? DEFAULT_SCREEN_POLICY : base, field);
  } catch (error) {
    throw invalid((error as Error).message);
  }
}

/** Each server's screen: its policy, the per-tool ones, and the other servers' names. */
/** What of a `connectAll` configuration decides the screens (as given, not yet checked). */
interface ScreenSettings {
  readonly servers: readonly { readonly id: string; readonly screen?: unknown }[];
  readonly screenTools?: Readonly<Record<string, unknown>>;
}

export function resolveScreens(
  config: ScreenSettings,
  allowed: ReadonlyMap<string, { server: string; tool: string }>,
  ids: ReadonlySet<string>,
): Map<string, DiscoveryScreen | false> {
  const perTool = config.screenTools ?? {};
  if (typeof perTool !== "object" || perTool === null || Array.isArray(perTool)) {
    throw invalid('screenTools must be an object of "server.tool" entries');
  }
  for (const entry of Object.keys(perTool)) {
    parseEntry(entry, ids, "screenTools");
    if (!allowed.has(entry)) {
      throw new ConnectConfigError(
        "connect_not_allowed",
        `screenTools names "${entry}", not in allow`,
      );
    }
  }
  const screens = new Map<string, DiscoveryScreen | false>();
  for (const server of config.servers) {
    const field = `server "${server.id}": screen`;
    const policy = screenPolicyOf(server.screen, undefined, field);
    const tools: Record<string, ScreenPolicy | false> = {};
    const others: string[] = [];
    for (const [entry, pair] of allowed) {
      if (pair.server !== server.id) {
        others.push(pair.tool);
        continue;
      }
      if (!Object.hasOwn(perTool, entry)) continue;
      const own = screenPolicyOf(perTool[entry], policy, `screenTools["${entry}"]`);
      tools[pair.tool] = own ?? false;
    }
    const anyOn = policy !== null || Object.values(tools).some((tool) => tool !== false);
    screens.set(
      server.id,
      anyOn
        ? {
          otherToolNames: [...new Set(others)],
          serverNames: [...ids].filter((id) => id !== server.id),
          // A server that is off with a tool on: that tool's policy is whole, the others off.
          ...(policy !== null ? { policy } : {}),
          tools: policy !== null ? tools : Object.fromEntries(
            [...allowed.values()].filter((pair) => pair.server === server.id).map((pair) => [
              pair.tool,
              tools[pair.tool] ?? false,
            ]),
          ),
        }
        : false,
    );
  }
  return screens;
}
