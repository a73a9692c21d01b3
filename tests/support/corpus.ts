// The shared corpus of real servers' tool lists (../shared/corpus-sample beside the clone, or
// SLUICE_CORPUS_DIR), for the suites that measure against it.
const root = new URL("../..", import.meta.url);

/** The corpus folder, or `undefined` (with a warning naming `suite`) when it is not there. */
export function corpusDir(suite: string): string | undefined {
  const fromEnv = Deno.env.get("SLUICE_CORPUS_DIR");
  const dir = fromEnv
    ? fromEnv.replace(/\/?$/, "/")
    : new URL("../shared/corpus-sample/", root).pathname;
  try {
    if (Deno.statSync(dir).isDirectory) return dir;
  } catch {
    // Missing: the caller skips.
  }
  console.warn(
    `${suite}: shared corpus not found at ../shared/corpus-sample (set SLUICE_CORPUS_DIR); ` +
      "corpus tests are skipped",
  );
  return undefined;
}
