/**
 * The code catalog (`src/codes.ts`) is the one list: every module's code union is inside it
 * (checked by `deno check` on this file), and the error reference lists exactly its codes.
 */
import assert from "node:assert/strict";
import { codeOf, CODES, type SluiceCode } from "../src/codes.ts";
import { SluiceError } from "../src/errors.ts";
import type { JsonErrorCode } from "../src/identity/errors.ts";
import type { SchemaProblemCode, ValidationErrorCode } from "../src/schema/types.ts";
import type { TransportErrorCode } from "../src/transport/errors.ts";
import type { AuthErrorCode } from "../src/auth/errors.ts";
import type { SessionErrorCode } from "../src/session/session.ts";
import type { DiscoveryErrorCode } from "../src/catalog/errors.ts";
import type { LockErrorCode } from "../src/catalog/lock.ts";
import type { CallErrorCode } from "../src/calls/envelope.ts";
import type { DeadlineStop } from "../src/calls/within_deadline.ts";
import type { GateErrorCode } from "../src/gate/types.ts";
import type { GateErrorCodeThrown } from "../src/gate/gate.ts";
import type { ApprovalErrorCode } from "../src/approvals/errors.ts";
import type { ClaimRefusalCode, GrantRefusalCode } from "../src/approvals/types.ts";
import type { ConnectConfigErrorCode } from "../src/connect/errors.ts";
import type { ToolkitErrorCode } from "../src/connect/toolkit.ts";
import type { ProviderRefusalCode } from "../src/providers/types.ts";
import type { InboxErrorCode } from "../src/inbox/errors.ts";
import type { CliErrorCode } from "../src/cli/errors.ts";

/** Compiles only when every member of `Code` is in the catalog. */
type Catalogued<Code extends SluiceCode> = Code;
type _Unions = [
  Catalogued<JsonErrorCode>,
  Catalogued<SchemaProblemCode>,
  Catalogued<ValidationErrorCode>,
  Catalogued<"schema_unsupported">,
  Catalogued<TransportErrorCode>,
  Catalogued<AuthErrorCode>,
  Catalogued<SessionErrorCode>,
  Catalogued<DiscoveryErrorCode>,
  Catalogued<LockErrorCode>,
  Catalogued<CallErrorCode>,
  Catalogued<DeadlineStop>,
  Catalogued<GateErrorCode>,
  Catalogued<GateErrorCodeThrown>,
  Catalogued<ApprovalErrorCode>,
  Catalogued<ClaimRefusalCode>,
  Catalogued<GrantRefusalCode>,
  Catalogued<ConnectConfigErrorCode>,
  Catalogued<ToolkitErrorCode>,
  Catalogued<ProviderRefusalCode>,
  Catalogued<InboxErrorCode>,
  Catalogued<CliErrorCode>,
];

Deno.test("codes: every catalogued code is snake_case with a stage and a one-line meaning", () => {
  for (const [code, entry] of Object.entries(CODES)) {
    assert.match(code, /^[a-z][a-z0-9]*(_[a-z0-9]+)+$/, code);
    assert.ok(entry.meaning.length > 10 && !entry.meaning.includes("\n"), code);
  }
});

Deno.test("codes: docs/errors.md lists exactly the catalogued codes", async () => {
  const page = await Deno.readTextFile(new URL("../docs/errors.md", import.meta.url));
  // The first cell of every table row names one code.
  const listed = new Set(
    page.split("\n").map((line) => /^\|\s*`([a-z0-9_]+)`\s*\|/.exec(line)?.[1]).filter((
      code,
    ): code is string => code !== undefined),
  );
  const catalogued = new Set(Object.keys(CODES));
  assert.deepEqual([...catalogued].filter((code) => !listed.has(code)), [], "not in the docs");
  assert.deepEqual([...listed].filter((code) => !catalogued.has(code)), [], "not in the catalog");
});

Deno.test("codeOf: the code of a SluiceError, nothing for anything else", () => {
  assert.equal(codeOf(new SluiceError("json_cycle", "a cycle")), "json_cycle");
  assert.equal(codeOf(Object.assign(new Error("x"), { code: "json_cycle" })), undefined);
  assert.equal(codeOf("json_cycle"), undefined);
  assert.equal(codeOf(undefined), undefined);
});
