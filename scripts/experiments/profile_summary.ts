/**
 * Sums the self time of a V8 `.cpuprofile` (from `deno run --cpu-prof`) by function and by file,
 * largest first:
 *
 * ```
 * deno run -A scripts/experiments/profile_summary.ts <file>.cpuprofile [rows]
 * ```
 *
 * Not part of `deno task bench`.
 *
 * @module
 */
interface ProfileNode {
  readonly id: number;
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
  };
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const [path, rowsArg] = Deno.args;
const ROWS = Number(rowsArg ?? 40);
const profile: Profile = JSON.parse(await Deno.readTextFile(path));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => {
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const short = (url: string) =>
  url.replace(/^file:\/\/.*?\/(src|scripts|fixtures|tests|node_modules)\//, "$1/")
    .replace(/^.*\/node_modules\/\.deno\//, "npm:").replace(/^.*\/registry\.npmjs\.org\//, "npm:");
function sum(key: (node: ProfileNode) => string) {
  const sums = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const k = key(byId.get(id)!);
    sums.set(k, (sums.get(k) ?? 0) + us);
  }
  return [...sums].sort((a, b) => b[1] - a[1]).slice(0, ROWS);
}
const print = (title: string, rows: [string, number][]) => {
  console.log(`\n${title} (of ${(total / 1000).toFixed(0)} ms sampled)`);
  for (const [k, us] of rows) {
    console.log(
      `${(us / 1000).toFixed(1).padStart(8)} ms ${
        (100 * us / total).toFixed(1).padStart(5)
      }%  ${k}`,
    );
  }
};
print(
  "self time by function",
  sum(({ callFrame: f }) =>
    `${f.functionName || "(anonymous)"} ${short(f.url)}:${f.lineNumber + 1}`
  ),
);
print("self time by file", sum(({ callFrame: f }) => short(f.url) || "(native)"));
