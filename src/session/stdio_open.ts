/**
 * Opens a stdio server's session. In the sources (JSR, `deno run`, Bun and Node running them)
 * this is the real one (`stdio_open_process.ts`). The npm package does not ship this choice: the
 * build writes this module as a re-export of the package's `#stdio-open` import, whose export
 * conditions select `stdio_open_process.ts` (`deno`, `bun`, `node`) or `stdio_open_workerd.ts`
 * (`workerd`, `worker`, `browser` and the default), which starts nothing, so a Worker bundle
 * holds no stdio code (see `CONDITIONAL_MODULES` in `fixtures/package/package_graph.ts`).
 *
 * @module
 */
export { openStdioSession } from "./stdio_open_process.ts";
