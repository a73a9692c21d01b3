/**
 * The house rules of `src/` that no type checker sees: no function over 100 lines and no file
 * over 500 (issue #25: an oversized closure is a module waiting to be named). Read with the
 * TypeScript compiler's parser, so a function is what the language says it is (declarations,
 * methods, accessors, arrows, function expressions), measured from its first line to its last.
 */
import assert from "node:assert/strict";
import ts from "typescript";

const SRC = new URL("../src/", import.meta.url);
const MAX_FUNCTION_LINES = 100;
const MAX_FILE_LINES = 500;

/** Every `.ts` file under `dir`, as a path relative to `src/`. */
function sources(dir: URL, prefix = ""): string[] {
  const found: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    if (entry.isDirectory) {
      found.push(...sources(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`));
    } else if (entry.name.endsWith(".ts")) found.push(`${prefix}${entry.name}`);
  }
  return found.sort();
}

/** Each function of a file with a body, by where it starts, and its length in lines. */
function functionLengths(path: string, text: string): { at: string; lines: number }[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const lengths: { at: string; lines: number }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body !== undefined) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = (node as ts.FunctionLikeDeclaration).name?.getText(file) ?? "(anonymous)";
      lengths.push({ at: `src/${path}:${first + 1} ${name}`, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return lengths;
}

const files = sources(SRC).map((path) => ({
  path,
  text: Deno.readTextFileSync(new URL(path, SRC)),
}));

Deno.test("house: src/ has files to measure (the walk found the tree)", () => {
  // A wrong root would find nothing and pass the rules below vacuously.
  assert.ok(files.length > 100, `only ${files.length} files found under src/`);
  assert.ok(files.some((file) => file.path === "connect/connect.ts"));
});

Deno.test(`house: no function in src/ is over ${MAX_FUNCTION_LINES} lines`, () => {
  const long = files.flatMap(({ path, text }) => functionLengths(path, text))
    .filter((fn) => fn.lines > MAX_FUNCTION_LINES)
    .map((fn) => `${fn.at} (${fn.lines} lines)`);
  assert.deepEqual(long, [], "split these into named functions or modules");
});

Deno.test(`house: no file in src/ is over ${MAX_FILE_LINES} lines`, () => {
  const large = files.map(({ path, text }) => ({
    path,
    lines: text.split("\n").length - (text.endsWith("\n") ? 1 : 0),
  })).filter((file) => file.lines > MAX_FILE_LINES)
    .map((file) => `src/${file.path} (${file.lines} lines)`);
  assert.deepEqual(large, [], "split these by concept");
});
