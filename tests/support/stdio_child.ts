// Runs connect() over stdio on the runtime executing this file (Node, Bun, Deno), for the
// cross-runtime stdio test: `<runtime> stdio_child.ts <deno binary> <repository root>`. It starts
// the hostile stdio fixture twice with that Deno binary: `forks` (a call, the forked child's
// pid, close) and `big-frame` (a line over the cap). Prints one JSON line.
import { connect } from "../../mod.ts";

const [deno, root] = process.argv.slice(2);
const server = (mode: string, extra: Record<string, unknown> = {}) => ({
  command: deno,
  args: ["run", "-A", `${root}fixtures/hostile_stdio.ts`, mode],
  cwd: root,
  inheritEnv: ["HOME", "DENO_DIR", "PATH"],
  closeTimeoutMs: 500,
  ...extra,
});
const options = { id: "hostile", allow: ["poke"], preApproved: ["poke"] };

const forks = await connect(server("forks"), options);
const pid = forks.report().servers[0].stdio?.pid;
const poke = await forks.toolkit.call("hostile__poke", {});
await forks.close();

const big = await connect(
  server("big-frame", { maxFrameBytes: 4096, env: { SLUICE_HOSTILE_BYTES: "65536" } }),
  options,
);
const bigPid = big.report().servers[0].stdio?.pid;
const tooLarge = await big.toolkit.call("hostile__poke", {});
await big.close();

console.log(JSON.stringify({ pid, text: poke.text, bigPid, bigCode: tooLarge.errorCode }));
