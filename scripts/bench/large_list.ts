/**
 * A large, realistic `tools/list` for the `connect` benchmark, made deterministically from the
 * shared corpus of real servers' lists (`../shared/corpus-sample/` beside the clone, or
 * `SLUICE_CORPUS_DIR`). The corpus's largest list (notion, 24 tools, 80 KB) is far from the
 * 188-tool, 1 MiB catalogs seen in practice, so {@link largeToolList} builds one of that size.
 *
 * @module
 */

/** Tools in the generated list. */
export const LARGE_LIST_TOOLS = 188;

/**
 * UTF-8 bytes of `JSON.stringify(tools)` the generated list reaches (give or take one
 * property): just under 1 MiB, so that the whole `tools/list` response fits sluice's default
 * 1 MiB catalog and response caps.
 */
export const LARGE_LIST_BYTES = 1_040_000;

type Tool = Record<string, unknown> & {
  name: string;
  inputSchema: { properties?: Record<string, unknown> } & Record<string, unknown>;
};

/**
 * The corpus directory: `SLUICE_CORPUS_DIR`, else `../shared/corpus-sample/` beside the clone;
 * `undefined` when neither exists.
 *
 * @param root the repository root
 */
export function corpusDir(root: URL): URL | undefined {
  const fromEnv = Deno.env.get("SLUICE_CORPUS_DIR");
  const dir = fromEnv
    ? new URL(`file://${fromEnv.replace(/\/?$/, "/")}`)
    : new URL("../shared/corpus-sample/", root);
  try {
    return Deno.statSync(dir).isDirectory ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** Every tool of the corpus, files in name order, tools in listed order. */
function corpusTools(dir: URL): Tool[] {
  const files = [...Deno.readDirSync(dir)]
    .filter((entry) => entry.isFile && entry.name.endsWith(".json"))
    .map((entry) => entry.name)
    .sort();
  return files.flatMap((file) =>
    (JSON.parse(Deno.readTextFileSync(new URL(file, dir))) as { tools: Tool[] }).tools
  );
}

const byteLength = (value: unknown): number =>
  new TextEncoder().encode(JSON.stringify(value)).byteLength;

/**
 * {@link LARGE_LIST_TOOLS} real tools (taken evenly across the corpus, names kept, a suffix
 * only on a repeated name), each input schema widened with copies of the properties of the
 * tools after it in the corpus (renamed `<name>_<k>`; donors using `$ref` are skipped so every
 * schema stays self-contained) until the list is about {@link LARGE_LIST_BYTES} bytes. The
 * same corpus always gives the same list.
 *
 * @param dir the corpus directory
 */
export function largeToolList(dir: URL): Record<string, unknown>[] {
  const corpus = corpusTools(dir);
  const donors = corpus.filter((tool) =>
    tool.inputSchema.properties !== undefined && !JSON.stringify(tool).includes('"$ref"')
  );
  const names = new Set<string>();
  const tools: Tool[] = [];
  let total = 2; // the brackets
  for (let index = 0; index < LARGE_LIST_TOOLS; index++) {
    const base = structuredClone(corpus[Math.floor(index * corpus.length / LARGE_LIST_TOOLS)]);
    let name = base.name;
    for (let suffix = 2; names.has(name); suffix++) name = `${base.name}_${suffix}`;
    names.add(name);
    base.name = name;
    const properties = base.inputSchema.properties ??= {};
    const share = (LARGE_LIST_BYTES - total) / (LARGE_LIST_TOOLS - index);
    let size = byteLength(base);
    for (let k = 1; size < share && k <= donors.length; k++) {
      const donor = donors[(index + k) % donors.length];
      for (const [property, schema] of Object.entries(donor.inputSchema.properties!)) {
        if (size >= share) break;
        const key = `${property}_${k}`;
        if (key in properties) continue;
        properties[key] = structuredClone(schema);
        size += byteLength(key) + byteLength(schema) + 2;
      }
    }
    size = byteLength(base);
    total += size + (index > 0 ? 1 : 0);
    tools.push(base);
  }
  return tools;
}

if (import.meta.main) {
  const dir = corpusDir(new URL("../../", import.meta.url));
  if (dir === undefined) throw new Error("corpus not found (set SLUICE_CORPUS_DIR)");
  const tools = largeToolList(dir);
  console.log(`${tools.length} tools, ${byteLength(tools)} bytes`);
}
