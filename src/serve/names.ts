/**
 * The names clients see. By default a served tool is listed and called under its local name
 * (`<server>__<tool>`); with `toolNames: "remote"` under the upstream's own name, which a client
 * written for that server expects. Remote names are allowed only when unambiguous (no two served
 * tools share one); allowlists and audit events keep the local names.
 *
 * @module
 */
import type { ToolkitTool } from "../connect/mod.ts";
import { ServeError } from "./errors.ts";
import { clientMay, type ServeClient } from "./clients.ts";

/**
 * Which names a served tool goes by for clients.
 *
 * @category sluice serve
 */
export type ServedToolNames = "local" | "remote";

/**
 * The two-way map between what clients see and the toolkit's local names.
 *
 * @category sluice serve
 */
export class ServedNames {
  readonly #mode: ServedToolNames;
  #external = new Map<string, string>();
  #local = new Map<string, string>();
  #of: readonly ToolkitTool[] | undefined;

  /**
   * @param mode local names (default) or the upstreams' own
   */
  constructor(mode: ServedToolNames = "local") {
    if (mode !== "local" && mode !== "remote") {
      throw new ServeError(
        "serve_config_invalid",
        'sluice serve: toolNames is "local" or "remote"',
      );
    }
    this.#mode = mode;
  }

  /**
   * Throws `serve_config_invalid` when, with remote names, two of `tools` share a remote name.
   *
   * @param tools the toolkit's tools
   */
  check(tools: readonly ToolkitTool[]): void {
    if (this.#mode === "local") return;
    const seen = new Set<string>();
    for (const tool of tools) {
      if (seen.has(tool.tool)) {
        throw new ServeError(
          "serve_config_invalid",
          `sluice serve: toolNames "remote" needs unambiguous names; "${tool.tool}" is served by ` +
            "more than one server",
        );
      }
      seen.add(tool.tool);
    }
  }

  /**
   * Takes `tools` as the served list (again, when it changed). With remote names, a tool whose
   * remote name an earlier one already has (a server that later added it) is not served.
   *
   * @param tools the toolkit's tools
   */
  use(tools: readonly ToolkitTool[]): void {
    if (this.#mode === "local" || tools === this.#of) return;
    const external = new Map<string, string>();
    const local = new Map<string, string>();
    for (const tool of tools) {
      if (local.has(tool.tool)) continue;
      external.set(tool.name, tool.tool);
      local.set(tool.tool, tool.name);
    }
    this.#external = external;
    this.#local = local;
    this.#of = tools;
  }

  /**
   * The name a client sees for the local name `name` (`undefined`: not served, see `use`).
   *
   * @param name a served tool's local name
   */
  external(name: string): string | undefined {
    return this.#mode === "local" ? name : this.#external.get(name);
  }

  /**
   * The local name a client's `name` stands for, or `undefined` when it names no served tool.
   *
   * @param name the name the client sent
   */
  local(name: unknown): string | undefined {
    if (typeof name !== "string") return undefined;
    return this.#mode === "local" ? name : this.#local.get(name);
  }
}

/**
 * The tools `client` is listed, under the names it sees, with their admitted input schemas and,
 * for one that may run as a task, its task support.
 *
 * @param tools the served list
 * @param client the client
 * @param names the names clients see
 * @param taskSupport how a tool runs as a task, if it may
 */
export function listedTools(
  tools: readonly ToolkitTool[],
  client: ServeClient,
  names: ServedNames,
  taskSupport: (tool: ToolkitTool) => string | undefined,
): Record<string, unknown>[] {
  return tools.filter((tool) =>
    clientMay(client, tool.name) && names.external(tool.name) !== undefined
  ).map((tool) => {
    const support = taskSupport(tool);
    return {
      name: names.external(tool.name)!,
      description: tool.description,
      inputSchema: tool.inputSchema,
      // A call that waits for a person may run as a task the client polls.
      ...(support === undefined ? {} : { execution: { taskSupport: support } }),
    };
  });
}
