/**
 * The protocol revisions sluice speaks: one list, read by the catalog monitor, discovery and
 * connect()'s handshake alike.
 *
 * @module
 */

/**
 * The protocol revision connect() tries first.
 *
 * @category Discovery and calls
 */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";

/**
 * The 2025 revisions accepted from an `initialize` answer, newest first, and nothing else.
 *
 * @category Discovery and calls
 */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([
  "2025-11-25",
  "2025-06-18",
]);

/**
 * Protocol versions whose tool semantics sluice implements.
 *
 * @category Discovery and calls
 */
export const ACCEPTED_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([
  MODERN_PROTOCOL_VERSION,
  ...LEGACY_PROTOCOL_VERSIONS,
]);

/**
 * Older revisions a host may opt in to (connect()'s `legacyProtocolVersions`), still widely
 * deployed; never accepted by default.
 *
 * @category Discovery and calls
 */
export const OPT_IN_PROTOCOL_VERSIONS: readonly string[] = Object.freeze(["2025-03-26"]);

/**
 * The versions one session accepts: 2026-07-28 and the 2025 revisions allowed (by default
 * {@link LEGACY_PROTOCOL_VERSIONS}). The session's handshake and its observer read the same list.
 *
 * @param legacy the 2025 revisions a host allows, if not the default
 */
export function acceptedProtocolVersions(legacy?: readonly string[]): readonly string[] {
  return legacy === undefined ? ACCEPTED_PROTOCOL_VERSIONS : [MODERN_PROTOCOL_VERSION, ...legacy];
}
