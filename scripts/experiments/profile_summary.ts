/**
 * Sums a V8 `.cpuprofile`'s self time by function (with its file and line) and by file:
 * `deno run -A scripts/experiments/profile_summary.ts <file.cpuprofile> [rows]`.
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

const [file, rowsText = "40"] = Deno.args;
const profile = JSON.parse(Deno.readTextFileSync(file)) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, index) => {
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
});
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
let total = 0;
for (const [id, us] of selfUs) {
  const frame = byId.get(id)!.callFrame;
  const shortUrl = frame.url.replace(/^.*\/(npm|src|scripts|ext)\//, "$1/");
  const fn = `${frame.functionName || "(anonymous)"} ${shortUrl}:${frame.lineNumber + 1}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  byFile.set(
    shortUrl || frame.functionName,
    (byFile.get(shortUrl || frame.functionName) ?? 0) + us,
  );
  total += us;
}
const show = (title: string, map: Map<string, number>) => {
  console.log(`\n${title} (self ms, % of ${(total / 1000).toFixed(0)} ms)`);
  for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, Number(rowsText))) {
    console.log(
      `${(us / 1000).toFixed(1).padStart(8)} ${
        (100 * us / total).toFixed(1).padStart(5)
      }%  ${name}`,
    );
  }
};
show("by file", byFile);
show("by function", byFunction);
