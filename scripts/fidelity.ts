/**
 * `deno task fidelity [dir] [--tools]`: how every tool of a folder of `tools/list` captures
 * (`{ tools: [...] }` JSON files; default `../shared/corpus-sample/` beside the repository)
 * fares in each provider export: unchanged, exported with a meaning-keeping transform, lossy
 * (Gemini) or refused, with the keywords behind each. `--tools` adds one line per tool.
 *
 * @module
 */
import {
  type ProviderExportReport,
  type ProviderReports,
  providerReports,
  type ProviderToolSource,
  type ToolFidelityStatus,
} from "../mod.ts";
import type { JsonObject } from "../src/identity/mod.ts";

/** The report's label for each export mode. */
export const MODES: Readonly<Record<string, keyof ProviderReports>> = {
  "openai": "openai",
  "openai strict": "openaiStrict",
  "anthropic": "anthropic",
  "anthropic strict": "anthropicStrict",
  "gemini": "gemini",
  "gemini exact": "geminiExact",
};

/** Each mode's report for `tools`, by label. */
export function reportsByLabel(
  tools: readonly ProviderToolSource[],
): Record<string, ProviderExportReport> {
  const reports = providerReports(tools);
  return Object.fromEntries(
    Object.entries(MODES).map(([label, key]) => [label, reports[key]]),
  );
}

/** One mode's totals over a folder. */
export interface ModeSummary {
  /** Tools per status. */
  readonly status: Record<ToolFidelityStatus, number>;
  /** Refusals per keyword (a tool counts once per keyword). */
  readonly refusedBy: Record<string, number>;
  /** Lossy tools per ignored keyword. */
  readonly lossyBy: Record<string, number>;
  /** Transformed tools per transform kind. */
  readonly transformedBy: Record<string, number>;
}

/** The tools of every capture in `dir`, in file-name order, named `file:tool`. */
export function readCaptures(dir: string): { file: string; tools: ProviderToolSource[] }[] {
  const files = [...Deno.readDirSync(dir)].filter((e) => e.isFile && e.name.endsWith(".json"))
    .map((e) => e.name).sort();
  return files.map((file) => {
    const capture = JSON.parse(Deno.readTextFileSync(`${dir.replace(/\/?$/, "/")}${file}`)) as {
      tools?: { name: string; description?: string; inputSchema: JsonObject }[];
    };
    return {
      file,
      tools: (capture.tools ?? []).map((tool) => ({
        name: tool.name,
        description: tool.description ?? "",
        inputSchema: tool.inputSchema,
      })),
    };
  });
}

const bump = (counts: Record<string, number>, key: string) => counts[key] = (counts[key] ?? 0) + 1;

/** Totals per mode over the given tools (each capture exported as one request). */
export function summarize(
  captures: { tools: ProviderToolSource[] }[],
): Record<string, ModeSummary> {
  const out: Record<string, ModeSummary> = {};
  for (const label of Object.keys(MODES)) {
    out[label] = {
      status: { unchanged: 0, transformed: 0, lossy: 0, refused: 0 },
      refusedBy: {},
      lossyBy: {},
      transformedBy: {},
    };
  }
  for (const capture of captures) {
    for (const [label, report] of Object.entries(reportsByLabel(capture.tools))) {
      const summary = out[label];
      for (const line of report.tools) {
        summary.status[line.status]++;
        for (const keyword of new Set(line.refusals.map((r) => r.keyword))) {
          bump(summary.refusedBy, keyword);
        }
        for (const keyword of new Set(line.lossy.map((l) => l.keyword))) {
          bump(summary.lossyBy, keyword);
        }
        for (const kind of new Set(line.transforms.map((t) => t.kind))) {
          bump(summary.transformedBy, kind);
        }
      }
    }
  }
  return out;
}

const ticked = (counts: Record<string, number>) =>
  Object.entries(counts).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([key, count]) => `\`${key}\` ${count}`).join(", ");

/** One Markdown bullet per mode: the keywords behind its refusals, losses and transforms. */
export function keywordLines(summaries: Record<string, ModeSummary>): string[] {
  return Object.entries(summaries).map(([label, s]) => {
    const parts = [
      ["refused by", s.refusedBy],
      ["lossy by", s.lossyBy],
      ["transformed by", s.transformedBy],
    ].filter(([, counts]) => Object.keys(counts).length > 0)
      .map(([what, counts]) => `${what} ${ticked(counts as Record<string, number>)}`);
    return `- ${label}: ${parts.length > 0 ? parts.join("; ") : "every tool unchanged"}.`;
  });
}

if (import.meta.main) {
  const args = Deno.args.filter((arg) => arg !== "--tools");
  const dir = args[0] ?? new URL("../../shared/corpus-sample/", import.meta.url).pathname;
  const captures = readCaptures(dir);
  const total = captures.reduce((sum, capture) => sum + capture.tools.length, 0);
  if (Deno.args.includes("--tools")) {
    for (const capture of captures) {
      const reports = Object.entries(reportsByLabel(capture.tools));
      capture.tools.forEach((tool, index) => {
        const cells = reports.map(([label, report]) => {
          const line = report.tools[index];
          const why = line.refusals.map((r) => `${r.keyword}@${r.path || "/"}`)
            .concat(line.lossy.map((l) => `${l.keyword}@${l.path || "/"}`));
          return `${label}=${line.status}${why.length ? `(${[...new Set(why)].join(" ")})` : ""}`;
        });
        console.log(`${capture.file}:${tool.name}  ${cells.join("  ")}`);
      });
    }
    console.log("");
  }
  console.log(`${total} tools in ${captures.length} files (${dir})\n`);
  console.log("| export | unchanged | transformed | lossy | refused |");
  console.log("| --- | --- | --- | --- | --- |");
  const summaries = summarize(captures);
  for (const [label, s] of Object.entries(summaries)) {
    const { unchanged, transformed, lossy, refused } = s.status;
    console.log(`| ${label} | ${unchanged} | ${transformed} | ${lossy} | ${refused} |`);
  }
  console.log("");
  console.log(keywordLines(summaries).join("\n"));
}
