/**
 * The share of real tools the schema profile admits: every tool of the shared corpus
 * (`../shared/corpus-sample/` beside the clone, or `SLUICE_CORPUS_DIR`) and of the captured
 * fixtures (`fixtures/schemas/`), by the profile at a base commit and by the working tree's.
 * A tool is admitted when its `inputSchema` (checked with `mcpHeaders`, as discovery of a
 * 2026-07-28 input schema would where the profile knows the option) and its `outputSchema`, if
 * any, both fit.
 *
 * Run: `deno run -A scripts/schema_corpus.ts [base commit, default 17a656c]`
 *
 * @module
 */
import { checkSchema as currentCheck } from "../mod.ts";

/** A `checkSchema` of some version of the profile. */
type Check = (schema: unknown, options?: { mcpHeaders?: boolean }) => { ok: boolean };

/** The tools of one server file: name and schemas as received. */
interface ToolFile {
  readonly tools: readonly {
    readonly name: string;
    readonly inputSchema?: unknown;
    readonly outputSchema?: unknown;
  }[];
}

const root = new URL("../", import.meta.url);

/** Where the corpus is, or `undefined` when it is absent. */
export function corpusDirectory(): string | undefined {
  const dir = Deno.env.get("SLUICE_CORPUS_DIR") ??
    new URL("../shared/corpus-sample/", root).pathname;
  try {
    return Deno.statSync(dir).isDirectory ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** Every tool file: the corpus's (when present) and the captured fixtures'. */
export function toolFiles(): { readonly name: string; readonly file: ToolFile }[] {
  const dirs = [corpusDirectory(), new URL("fixtures/schemas/", root).pathname]
    .filter((dir): dir is string => dir !== undefined);
  const files = [];
  for (const dir of dirs) {
    for (const entry of [...Deno.readDirSync(dir)].sort((a, b) => a.name < b.name ? -1 : 1)) {
      if (!entry.isFile || !entry.name.endsWith(".json")) continue;
      const file = JSON.parse(Deno.readTextFileSync(`${dir}/${entry.name}`));
      if (Array.isArray(file?.tools)) files.push({ name: entry.name, file });
    }
  }
  return files;
}

/** How many of the tools `check` admits. */
export function admittedTools(check: Check): { readonly admitted: number; readonly total: number } {
  let admitted = 0;
  let total = 0;
  for (const { file } of toolFiles()) {
    for (const tool of file.tools) {
      total++;
      const input = check(tool.inputSchema, { mcpHeaders: true }).ok;
      const output = tool.outputSchema === undefined || check(tool.outputSchema).ok;
      if (input && output) admitted++;
    }
  }
  return { admitted, total };
}

/** The profile's `checkSchema` as it was at `commit`, loaded from an extracted copy. */
async function checkAt(commit: string): Promise<Check> {
  const dir = await Deno.makeTempDir({ prefix: "sluice-profile-" });
  const archive = new Deno.Command("sh", {
    args: ["-c", `git -C "${root.pathname}" archive "${commit}" src mod.ts | tar -x -C "${dir}"`],
  });
  if (!(await archive.output()).success) throw new Error(`cannot extract ${commit}`);
  const module = await import(`file://${dir}/mod.ts`);
  return module.checkSchema as Check;
}

if (import.meta.main) {
  const base = Deno.args[0] ?? "17a656c";
  if (corpusDirectory() === undefined) console.log("(corpus absent: fixtures only)");
  for (
    const [label, check] of [[base, await checkAt(base)], ["working tree", currentCheck]] as const
  ) {
    const { admitted, total } = admittedTools(check);
    console.log(
      `${label}: ${admitted} of ${total} tools admitted (${(100 * admitted / total).toFixed(1)}%)`,
    );
  }
}
