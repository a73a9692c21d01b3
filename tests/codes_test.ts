/**
 * The code catalog (`src/codes.ts`) is the one list: every module's code union is derived from it
 * (by stage, or by the unions its entries name), and the error reference lists exactly its codes.
 */
import assert from "node:assert/strict";
import { type CodeGroup, codeOf, CODES, type CodeStage } from "../src/codes.ts";
import { SluiceError } from "../src/errors.ts";

/** Every group and stage, once each (a missing or unknown one does not compile). */
const GROUPS: Record<CodeGroup, true> = {
  SchemaProblemCode: true,
  ValidationErrorCode: true,
  LockErrorCode: true,
  DeadlineStop: true,
  GateErrorCodeThrown: true,
  ToolMapProblem: true,
  ClaimRefusalCode: true,
  GrantRefusalCode: true,
  GrantApprovalResult: true,
  ApprovalErrorCode: true,
  ConnectConfigErrorCode: true,
  ProviderRefusalCode: true,
  ToolkitErrorCode: true,
};
const STAGES: Record<CodeStage, true> = {
  install: true,
  identity: true,
  schema: true,
  screen: true,
  transport: true,
  auth: true,
  session: true,
  discovery: true,
  call: true,
  gate: true,
  approvals: true,
  connect: true,
  inbox: true,
  serve: true,
  cli: true,
};

Deno.test("codes: every stage and every union the catalog names holds at least one code", () => {
  const entries: readonly { stage: string; in?: readonly string[] }[] = Object.values(CODES);
  for (const stage of Object.keys(STAGES)) {
    assert.ok(entries.some((entry) => entry.stage === stage), stage);
  }
  for (const group of Object.keys(GROUPS)) {
    assert.ok(entries.some((entry) => entry.in?.includes(group)), group);
  }
});

Deno.test("codes: each stage's module holds only that stage, and no code is in two of them", async () => {
  const folder = new URL("../src/codes/", import.meta.url);
  let written = 0;
  for await (const file of Deno.readDir(folder)) {
    if (file.name === "entry.ts") continue;
    const module: Record<string, Record<string, { stage: string }>> = await import(
      new URL(file.name, folder).href
    );
    const stage = file.name.replace(/\.ts$/, "");
    const codes = module[`${stage.toUpperCase()}_CODES`];
    assert.ok(codes !== undefined, file.name);
    for (const [code, entry] of Object.entries(codes)) assert.equal(entry.stage, stage, code);
    written += Object.keys(codes).length;
  }
  // A code in two modules would be spread over once, silently: the counts would differ.
  assert.equal(written, Object.keys(CODES).length);
});

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

Deno.test("codes: the claim rows of docs/errors.md are exactly the catalog's ClaimRefusalCode", async () => {
  const page = await Deno.readTextFile(new URL("../docs/errors.md", import.meta.url));
  // Rows of the gate and approvals table: | `code` | where, where | meaning |
  const claimRows = page.split("\n").map((line) => /^\|\s*`([a-z0-9_]+)`\s*\|([^|]*)\|/.exec(line))
    .filter((match) =>
      match !== null && match[2].split(",").some((cell) => cell.trim() === "claim")
    )
    .map((match) => match![1]).sort();
  const grouped = Object.entries(CODES).filter(([, entry]) =>
    (entry as { in?: readonly string[] }).in?.includes("ClaimRefusalCode")
  ).map(([code]) => code).sort();
  assert.deepEqual(claimRows, grouped);
});

Deno.test("codeOf: the code of a SluiceError, nothing for anything else", () => {
  assert.equal(codeOf(new SluiceError("json_cycle", "a cycle")), "json_cycle");
  assert.equal(codeOf(Object.assign(new Error("x"), { code: "json_cycle" })), undefined);
  assert.equal(codeOf("json_cycle"), undefined);
  assert.equal(codeOf(undefined), undefined);
});
