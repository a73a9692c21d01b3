/** Test helpers: approval requests and expectations built from one synthetic write call. */
import { digest, type JsonObject } from "../../src/identity/mod.ts";
import type { ApprovalRequest, ClaimExpectation } from "../../src/approvals/mod.ts";

/** A controllable clock, milliseconds since the epoch. */
export interface TestClock {
  t: number;
  now: () => number;
}

/** A clock starting at a fixed instant. */
export function testClock(start = Date.UTC(2026, 10, 30, 12, 0, 0)): TestClock {
  const clock: TestClock = { t: start, now: () => clock.t };
  return clock;
}

/** A valid request for a synthetic document update, expiring `ttlMs` after `now`. */
export async function makeRequest(
  now: number,
  overrides: Partial<ApprovalRequest> = {},
  args: JsonObject = { document: "doc-1", title: "Quarterly plan" },
  ttlMs = 60_000,
): Promise<ApprovalRequest> {
  return {
    serverId: "docs",
    toolName: "update_doc",
    remoteToolName: "documents.update",
    catalogDigest: "sha256:" + "a".repeat(64),
    bindingId: "docs-update",
    scopeId: "sandbox-documents",
    scopeRevision: "scope-1",
    effect: "write",
    arguments: args,
    argumentsDigest: await digest(args),
    expiresAt: now + ttlMs,
    ...overrides,
  };
}

/** The expectation a gate would pass at claim time for an unchanged binding. */
export function expectationFor(
  request: ApprovalRequest,
  overrides: Partial<ClaimExpectation> = {},
): ClaimExpectation {
  return {
    serverId: request.serverId,
    toolName: request.toolName,
    remoteToolName: request.remoteToolName,
    catalogDigest: request.catalogDigest,
    bindingId: request.bindingId,
    scopeId: request.scopeId,
    scopeRevision: request.scopeRevision,
    effect: request.effect,
    argumentsDigest: request.argumentsDigest,
    ...overrides,
  };
}

/**
 * Arguments with astral-plane characters (each a surrogate pair in UTF-16): invisible tag
 * characters alone and in an emoji flag, emoji joined by zero-width joiners, a musical symbol in
 * a key, and a BMP bidi override beside them.
 */
export const ASTRAL_ARGUMENTS: JsonObject = Object.freeze({
  document: "tag\u{E0041}\u{E0042}\u{E007F} end",
  title:
    "rocket \u{1F680} family \u{1F468}\u200D\u{1F469}\u200D\u{1F467} flag \u{1F3F4}\u{E0067}\u{E0062}\u{E007F}",
  "clef \u{1D11E}": "\u{1D11E} and \u202E",
});
