/**
 * What every runtime module (`mod.ts` and the `on_*.ts` files the npm package's export
 * conditions choose between) exports: the runtime's resolver and its pinning mechanism.
 *
 * @module
 */
import type { RuntimePinning } from "../pinning.ts";
import type { Resolver } from "../resolver.ts";

/**
 * The resolver of a runtime and where it comes from.
 *
 * @category Transport
 */
export interface RuntimeResolver {
  /** The resolver. */
  readonly resolve: Resolver;
  /** Whose resolver it is. */
  readonly source: "deno" | "node";
}

/**
 * One runtime's choice.
 *
 * @category Transport
 */
export interface RuntimeSelection {
  /** The runtime's own resolver, or `undefined` where there is none (Workers). */
  runtimeResolver(): RuntimeResolver | undefined;
  /** How the runtime pins connections, or `undefined` where it cannot. */
  runtimePinning(): RuntimePinning | undefined;
}
