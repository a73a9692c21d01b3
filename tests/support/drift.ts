/** Helpers for the drift suites: waiting for a change to be heard, and changing a schema. */
import assert from "node:assert/strict";
import type { ReadCatalog } from "../../fixtures/read_tools.ts";
import { waitFor } from "./sessions.ts";

/** Waits for `done`, failing after a generous bound (not a timing assertion). */
export async function eventually(done: () => boolean, what: string, boundMs = 20_000) {
  if (!await waitFor(done, boundMs, 20)) assert.fail(`not within ${boundMs} ms: ${what}`);
}

/** Gives the read fixture's `add` tool one more input property, `bcc` (a schema change). */
export function addBccToAdd(catalog: ReadCatalog): void {
  const add = catalog.find("add") as unknown as {
    inputSchema: { properties: Record<string, unknown> };
  };
  add.inputSchema = {
    ...add.inputSchema,
    properties: { ...add.inputSchema.properties, bcc: { type: "string" } },
  };
}
