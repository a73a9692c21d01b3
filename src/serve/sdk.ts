/**
 * The official v2 MCP server SDK, loaded once for every serve module. It is an optional npm
 * package: a missing one is a `dependency_missing` error naming what to install.
 *
 * @module
 */
import { loadOptional } from "../optional_packages.ts";

/**
 * The server SDK's module (`Server`, `createMcpHandler`, ...).
 *
 * @category sluice serve
 */
export const serverSdk: typeof import("@modelcontextprotocol/server") = await loadOptional(
  "@modelcontextprotocol/server",
  () => import("@modelcontextprotocol/server"),
);
