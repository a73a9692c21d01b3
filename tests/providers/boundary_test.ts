// The provider SDKs are development dependencies: no published entry's module graph reaches
// `openai`, `@anthropic-ai/sdk` or `@google/genai` (only tests/providers/sdk_types_test.ts
// imports them, for types), and only the `./ai-sdk` entry reaches `ai`, so the core (what the
// Workers smoke bundles) never loads it.
import assert from "node:assert/strict";

const root = new URL("../..", import.meta.url).pathname;

/** The npm packages (names only) that the module graph of `entry` imports directly. */
async function npmPackagesOf(entry: string): Promise<string[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: root,
    stdout: "piped",
    stderr: "null",
  }).output();
  assert.ok(output.success, entry);
  const info = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    modules: { kind: string; npmPackage?: string }[];
  };
  return info.modules.filter((m) => m.kind === "npm" && m.npmPackage)
    .map((m) => m.npmPackage!.replace(/^(@?[^@]+)@.*$/, "$1"));
}

Deno.test("published entries never reach the provider SDKs; only ./ai-sdk reaches ai", async () => {
  const config = JSON.parse(Deno.readTextFileSync(`${root}deno.json`)) as {
    exports: Record<string, string>;
    publish: { include: string[] };
  };
  assert.equal(config.exports["./ai-sdk"], "./ai-sdk.ts");
  assert.ok(config.publish.include.includes("ai-sdk.ts"));
  const sdks = ["openai", "@anthropic-ai/sdk", "@google/genai"];
  for (const [name, entry] of Object.entries(config.exports)) {
    const packages = await npmPackagesOf(entry);
    for (const sdk of sdks) assert.ok(!packages.includes(sdk), `${name} reaches ${sdk}`);
    assert.equal(packages.includes("ai"), name === "./ai-sdk", `${name} and ai`);
  }
  const smoke = await npmPackagesOf("scripts/smoke/entry.ts");
  for (const sdk of [...sdks, "ai"]) assert.ok(!smoke.includes(sdk), `smoke reaches ${sdk}`);
  // The type-check test does reach them: the check is not vacuous.
  const typesTest = await npmPackagesOf("tests/providers/sdk_types_test.ts");
  for (const sdk of sdks) assert.ok(typesTest.includes(sdk), sdk);
});
