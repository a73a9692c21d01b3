/**
 * Bundles a module with `deno bundle --platform=browser` (the Workers platform check) and
 * asserts the bundle has no runtime import: no static or dynamic `node:`/`npm:`/`jsr:` import
 * and no `require(`.
 */
import assert from "node:assert/strict";

/**
 * Bundles `entry` (a path relative to the repository root) into a temp dir, removed afterwards,
 * asserts it has no runtime import, and returns the bundle's text.
 */
export async function bundleForBrowser(entry: string, prefix: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix });
  try {
    const out = `${dir}/bundle.mjs`;
    const result = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        "--platform=browser",
        new URL(`../../${entry}`, import.meta.url).pathname,
        "-o",
        out,
      ],
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.ok(result.success, new TextDecoder().decode(result.stderr));
    const code = await Deno.readTextFile(out);
    assert.doesNotMatch(code, /\bfrom\s*["'](node|npm|jsr):/);
    assert.doesNotMatch(code, /\bimport\s*\(\s*["'](node|npm|jsr):/);
    assert.doesNotMatch(code, /\brequire\s*\(/);
    return code;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
