// connect() over stdio on Node and Bun, as the DNS pinning test runs its child: the child's
// sources as JavaScript (Node 20 strips no types) with their npm dependencies from the runtime
// cache, or the TypeScript itself under Bun. The child starts the hostile stdio fixture with
// this Deno binary: a forked child is ended with its server, a frame over the cap ends with
// `stdio_frame_too_large`, and every pid is gone (checked here, by /proc).
import assert from "node:assert/strict";
import { processGone } from "../../fixtures/process.ts";
import { writeJavaScript } from "../../fixtures/package/javascript.ts";
import { packageGraph } from "../../fixtures/package/package_graph.ts";
import {
  bunBinary,
  ensureInstalled,
  onPath,
  root,
  run,
  RUNTIME_CACHE,
  RUNTIME_VERSIONS,
} from "../../fixtures/package/npm_cache.ts";

const CHILD = "tests/support/stdio_child.ts";

async function checkChild(binary: string, args: string[], env?: Record<string, string>) {
  const { code, stdout, stderr } = await run(binary, [...args, Deno.execPath(), root], {
    timeoutMs: 60_000,
    ...(env ? { env } : {}),
  });
  assert.equal(code, 0, stderr);
  const outcome = JSON.parse(stdout.trim().split("\n").at(-1)!);
  const child = Number(/^child (\d+)$/.exec(outcome.text[0])?.[1]);
  assert.ok(child > 0, `the call answered: ${outcome.text}`);
  assert.equal(outcome.bigCode, "stdio_frame_too_large");
  for (const pid of [outcome.pid, child, outcome.bigPid]) {
    assert.ok(typeof pid === "number" && await processGone(pid), `process ${pid} is gone`);
  }
}

Deno.test("Node 20: connect() over stdio ends the server and its children; a frame over the cap has its code", async () => {
  const graph = await packageGraph([CHILD]);
  await ensureInstalled(RUNTIME_CACHE, { node: RUNTIME_VERSIONS.node, ...graph.dependencies });
  const dir = await Deno.makeTempDir({ prefix: "sluice-stdio-node-" });
  try {
    assert.deepEqual(await writeJavaScript(graph.files, dir), []);
    const node = await onPath("node");
    assert.ok(node !== undefined, "node is not on PATH");
    await checkChild(node, [
      "--import",
      `${root}scripts/node/register_deps.mjs`,
      `${dir}/${CHILD.replace(/\.ts$/, ".js")}`,
    ], { PATH: Deno.env.get("PATH") ?? "", SLUICE_DEPS_DIR: RUNTIME_CACHE });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Bun: connect() over stdio ends the server and its children; a frame over the cap has its code", async () => {
  await checkChild(await bunBinary(), [`${root}${CHILD}`]);
});
