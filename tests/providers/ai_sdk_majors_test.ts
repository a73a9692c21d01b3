// The AI SDK adapter on AI SDK 6: the approval flow and the type test run again in a child
// `deno test` whose import map sends `ai` (the adapter's own import included) to the second
// version deno.json pins (`ai6`), as a user with `ai@6` installed has it.
import assert from "node:assert/strict";
import { root, run } from "../../fixtures/package/npm_cache.ts";

const FILES = ["tests/providers/ai_sdk_approval_test.ts", "tests/providers/ai_sdk_types_test.ts"];

Deno.test("AI SDK 6: the approval flow and the ToolSet types hold with ai mapped to ai@6", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${root}deno.json`));
  const imports: Record<string, string> = {};
  for (const [key, target] of Object.entries(config.imports as Record<string, string>)) {
    // deno.json maps `pkg/...` along with `pkg`; an import map file needs it spelled out.
    const to = key === "ai" ? config.imports.ai6 : target;
    imports[key] = to;
    if (to.startsWith("npm:") && !key.includes("/test")) {
      imports[`${key}/`] = `${to.replace(/^npm:/, "npm:/")}/`;
    }
  }
  assert.match(imports.ai, /^npm:ai@6\./);
  imports["ai/test"] = config.imports["ai6/test"];
  const dir = await Deno.makeTempDir({ prefix: "sluice-ai6-" });
  try {
    const map = `${dir}/import_map.json`;
    await Deno.writeTextFile(map, JSON.stringify({ imports }));
    const { code, stdout, stderr } = await run(
      Deno.execPath(),
      ["test", "-A", `--import-map=${map}`, ...FILES],
      { cwd: root, timeoutMs: 300_000, env: { NO_COLOR: "1", PATH: Deno.env.get("PATH") ?? "" } },
    );
    assert.equal(code, 0, stdout + stderr);
    assert.match(stdout, /ok \| 3 passed \| 0 failed/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
