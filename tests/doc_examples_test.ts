/**
 * Every TypeScript example (JSDoc of the entries and src/, README.md, docs/) is type-checked by
 * `deno task test` (its `examples` step, `deno check --doc-only`). One marked `ts ignore` is not,
 * so it must name, in a comment inside it, the test file that exercises what it shows.
 */
import assert from "node:assert/strict";

const root = new URL("../", import.meta.url);

/** The files whose examples the `examples` step checks, relative to the root. */
async function exampleFiles(): Promise<string[]> {
  const listed = new Deno.Command("git", { args: ["ls-files"], cwd: root, stdout: "piped" });
  return new TextDecoder().decode((await listed.output()).stdout).split("\n").filter((file) =>
    file === "README.md" || /^docs\/[^/]+\.md$/.test(file) || /^src\/.+\.ts$/.test(file) ||
    /^[^/]+\.ts$/.test(file)
  );
}

/** The `ts ignore` examples of `text` that name no existing test file, by line. */
function unexercised(file: string, text: string): string[] {
  const found: string[] = [];
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    if (!/^\s*(\*\s*)?```(ts|typescript|js|javascript)\s+ignore\b/.test(lines[index])) continue;
    let end = index + 1;
    while (end < lines.length && !/^\s*(\*\s*)?```\s*$/.test(lines[end])) end++;
    const body = lines.slice(index + 1, end).join("\n");
    const named = [...body.matchAll(/tests\/[\w/.-]+_test\.ts/g)].map((match) => match[0]);
    const exists = named.some((path) => {
      try {
        return Deno.statSync(new URL(path, root)).isFile;
      } catch {
        return false;
      }
    });
    if (!exists) found.push(`${file}:${index + 1}`);
    index = end;
  }
  return found;
}

Deno.test("examples: every example left out of the type check names the test that exercises it", async () => {
  const files = await exampleFiles();
  assert.ok(files.length > 100, "the files were listed");
  const missing: string[] = [];
  for (const file of files) {
    missing.push(...unexercised(file, await Deno.readTextFile(new URL(file, root))));
  }
  assert.deepEqual(missing, []);
});

Deno.test("examples: the check finds an ignored example without a test, and only that", () => {
  const page = [
    "```ts ignore",
    "await connect(url); // tests/codes_test.ts",
    "```",
    " * ```ts ignore",
    " * await connect(url);",
    " * ```",
    "```ts",
    "await connect(url);",
    "```",
  ].join("\n");
  assert.deepEqual(unexercised("page.md", page), ["page.md:4"]);
});
