/**
 * Write and read bindings for the write fixture's tools, shared by the gate suites.
 *
 * @module
 */
import type { ReadToolBinding, ScopeValidator, WriteToolBinding } from "../../mod.ts";

/** A scope that allows every call. */
export const ALLOW: ScopeValidator = () => undefined;

/** A write binding of `write_record` as `save_record`, with optional overrides. */
export function writeBinding(overrides: Partial<Record<keyof WriteToolBinding, unknown>> = {}) {
  return {
    localName: "save_record",
    policy: { mode: "confirm", title: "Save a record", effect: "write" },
    effect: "write",
    scope: ALLOW,
    bindingId: "records.save",
    bindingRevision: "rev-1",
    scopeId: "team-a",
    scopeRevision: "scope-1",
    ...overrides,
  } as WriteToolBinding;
}

/** A read binding of `read_record` as `load_record`. */
export function readBinding(): ReadToolBinding {
  return {
    localName: "load_record",
    policy: { mode: "read", title: "Load a record" },
    scope: null,
    concurrencySafe: true,
  };
}
