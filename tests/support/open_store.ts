/**
 * Opens the durable store a test names by URL (`postgres://...`, or a libSQL path), through the
 * same function the `sluice` CLI uses, so one end-to-end suite runs on every store.
 *
 * @module
 */
export { openStoreByUrl as openStore } from "../../src/cli/open_store.ts";
