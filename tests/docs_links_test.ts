// The README is a front door of at most 400 lines, and no relative link in README.md or docs/*.md
// points at a file or a `#anchor` heading that does not exist.
import assert from "node:assert/strict";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));

/** Most lines the README may have. */
const README_MAX_LINES = 400;

/**
 * Pages linked before they exist, each with who creates it. A link to one passes while the page
 * is missing (without an anchor only); once the page exists it is checked like any other.
 */
const PENDING_PAGES: ReadonlyMap<string, string> = new Map([
  ["docs/schema-profile.md", "the schema-profile work of issue 9 moves the profile there"],
]);

/** The anchor GitHub (and JSR) give a heading: lower case, punctuation dropped, spaces to `-`. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
    .replace(/ /g, "-");
}

/** The Markdown of `text` outside fenced code blocks, with inline code spans blanked. */
function proseLines(text: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of text.split("\n")) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) {
        fence = undefined;
      }
      lines.push("");
      continue;
    }
    if (marker !== undefined) {
      fence = marker;
      lines.push("");
      continue;
    }
    lines.push(line.replace(/(`+)[^`]*?\1/g, (span) => " ".repeat(span.length)));
  }
  return lines;
}

/** Every anchor the headings of `text` define, duplicates numbered as GitHub does. */
function anchors(text: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split("\n")) {
    if (/^\s*(`{3,}|~{3,})/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}

/** The link targets of `text` (inline links, images and reference definitions), by line. */
function links(text: string): { line: number; target: string }[] {
  const found: { line: number; target: string }[] = [];
  proseLines(text).forEach((line, index) => {
    for (const match of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      found.push({ line: index + 1, target: match[1] });
    }
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/.exec(line);
    if (definition) found.push({ line: index + 1, target: definition[1] });
  });
  return found;
}

function readText(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.IsADirectory) {
      return undefined;
    }
    throw error;
  }
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/**
 * Every relative link of the Markdown files `files` (paths relative to `base`) whose file or
 * heading anchor does not exist, as `file:line: target (why)`.
 */
function brokenLinks(
  base: string,
  files: readonly string[],
  pending: ReadonlyMap<string, string> = new Map(),
): string[] {
  const broken: string[] = [];
  for (const file of files) {
    const source = join(base, file);
    const text = Deno.readTextFileSync(source);
    for (const { line, target } of links(text)) {
      // External (https:, mailto:, ...) and protocol-relative links are not checked here.
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) continue;
      const hash = target.indexOf("#");
      const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
      const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const where = `${file}:${line}: ${target}`;
      const resolved = pathPart === "" ? source : normalize(join(dirname(source), pathPart));
      const name = relative(base, resolved).replaceAll("\\", "/");
      if (name.startsWith("..")) {
        broken.push(`${where} (outside the repository)`);
        continue;
      }
      if (!exists(resolved)) {
        if (pending.has(name) && anchor === undefined) continue;
        broken.push(`${where} (no file ${name})`);
        continue;
      }
      if (anchor === undefined || anchor === "") continue;
      const page = resolved.endsWith(".md") ? readText(resolved) : undefined;
      if (page === undefined) {
        broken.push(`${where} (an anchor into ${name}, which is not a Markdown page)`);
      } else if (!anchors(page).has(anchor)) {
        broken.push(`${where} (no heading #${anchor} in ${name})`);
      }
    }
  }
  return broken;
}

/** README.md and every docs/*.md, relative to the repository root. */
function documentationFiles(): string[] {
  const pages = [...Deno.readDirSync(join(root, "docs"))]
    .filter((entry) => entry.isFile && entry.name.endsWith(".md"))
    .map((entry) => `docs/${entry.name}`)
    .sort();
  return ["README.md", ...pages];
}

Deno.test("docs: README.md has at most 400 lines", () => {
  const text = Deno.readTextFileSync(join(root, "README.md"));
  const lines = text.endsWith("\n") ? text.split("\n").length - 1 : text.split("\n").length;
  assert.ok(
    lines <= README_MAX_LINES,
    `README.md has ${lines} lines, over ${README_MAX_LINES}: move reference material to docs/`,
  );
});

Deno.test("docs: every relative link in README.md and docs/*.md resolves, anchors included", () => {
  const files = documentationFiles();
  assert.ok(files.length > 1, "no docs/*.md found");
  assert.deepEqual(brokenLinks(root, files, PENDING_PAGES), []);
});

Deno.test("docs: the link check finds missing files and headings, and only those", () => {
  const dir = Deno.makeTempDirSync({ prefix: "sluice-docs-links-" });
  try {
    Deno.mkdirSync(join(dir, "docs"));
    Deno.writeTextFileSync(
      join(dir, "docs", "page.md"),
      "# A page\n\n## Error codes: `connect()` codes\n\n## Twice\n\n## Twice\n",
    );
    Deno.writeTextFileSync(
      join(dir, "README.md"),
      [
        "# Title",
        "## Use it from your own project",
        "[ok](docs/page.md) [ok](docs/page.md#error-codes-connect-codes) [ok](#title)",
        "[ok](docs/page.md#twice-1) [ok](#use-it-from-your-own-project) [ok](https://x.test/a.md)",
        "[ok](docs/) [ok](docs/later.md)",
        "[missing file](docs/nope.md)",
        "[missing heading](docs/page.md#nope)",
        "[missing local heading](#nope)",
        "[missing pending heading](docs/later.md#part)",
        "[ref]: ./missing.md",
        "`[in code](docs/nope.md)`",
        "```md",
        "[in a fence](docs/nope.md)",
        "```",
        "[outside](../elsewhere.md)",
      ].join("\n"),
    );
    const broken = brokenLinks(
      dir,
      ["README.md", "docs/page.md"],
      new Map([["docs/later.md", ""]]),
    );
    assert.deepEqual(broken, [
      "README.md:6: docs/nope.md (no file docs/nope.md)",
      "README.md:7: docs/page.md#nope (no heading #nope in docs/page.md)",
      "README.md:8: #nope (no heading #nope in README.md)",
      "README.md:9: docs/later.md#part (no file docs/later.md)",
      "README.md:10: ./missing.md (no file missing.md)",
      "README.md:15: ../elsewhere.md (outside the repository)",
    ]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("docs: heading anchors follow GitHub's rule", () => {
  assert.equal(slug("Schema profile `sluice.schema/v1`"), "schema-profile-sluiceschemav1");
  assert.equal(
    slug("Platform team: host-owned sessions and the gate"),
    "platform-team-host-owned-sessions-and-the-gate",
  );
  assert.equal(slug("connect() codes"), "connect-codes");
  assert.equal(slug("The `sluice approvals` CLI"), "the-sluice-approvals-cli");
});

/**
 * Every command README.md and docs/*.md name that does not exist here, as `file: command (why)`:
 * a `deno task` that deno.json lacks, a `deno task bench` name no benchmark has, a repository file a
 * `deno run` names that is missing.
 */
function missingCommands(base: string, files: readonly string[]): string[] {
  const config = JSON.parse(Deno.readTextFileSync(join(base, "deno.json"))) as {
    tasks?: Record<string, string>;
  };
  const tasks = new Set(Object.keys(config.tasks ?? {}));
  const benchDir = join(base, "scripts", "bench");
  const benches = new Set(
    (exists(benchDir)
      ? [...Deno.readDirSync(benchDir)].map((entry) => join(benchDir, entry.name))
      : [])
      .concat(join(base, "scripts", "bench.ts"))
      .filter((path) => path.endsWith(".ts") && exists(path))
      .flatMap((path) => [...Deno.readTextFileSync(path).matchAll(/^\s+name: "([a-z_]+)",$/gm)])
      .map((match) => match[1]),
  );
  const missing: string[] = [];
  for (const file of files) {
    const text = Deno.readTextFileSync(join(base, file));
    for (const [command] of text.matchAll(/deno (?:task|run)[^`|\n]*/g)) {
      const words = command.trim().split(/\s+/);
      if (words[1] === "task") {
        const [task, name] = [words[2], words[3]];
        if (task === undefined || task.startsWith("<")) continue;
        if (!tasks.has(task)) missing.push(`${file}: ${command.trim()} (no task ${task})`);
        else if (task === "bench" && name !== undefined && /^[a-z_]+$/.test(name)) {
          if (!benches.has(name)) missing.push(`${file}: ${command.trim()} (no benchmark ${name})`);
        }
        continue;
      }
      for (const word of words.slice(2)) {
        if (!/^(scripts|fixtures|tests|src)\/[\w./-]+\.(ts|mjs)$/.test(word) && word !== "cli.ts") {
          continue;
        }
        if (!exists(join(base, word))) missing.push(`${file}: ${command.trim()} (no file ${word})`);
      }
    }
  }
  return missing;
}

Deno.test("docs: every deno task, benchmark and script README.md and docs/*.md name exists", () => {
  assert.deepEqual(missingCommands(root, documentationFiles()), []);
});

Deno.test("docs: the command check finds a missing task, benchmark and script, and only those", () => {
  const dir = Deno.makeTempDirSync({ prefix: "sluice-docs-commands-" });
  try {
    Deno.mkdirSync(join(dir, "scripts", "bench"), { recursive: true });
    Deno.writeTextFileSync(join(dir, "deno.json"), JSON.stringify({ tasks: { bench: "x" } }));
    Deno.writeTextFileSync(
      join(dir, "scripts", "bench", "a.ts"),
      'const b = {\n  name: "here",\n};\n',
    );
    Deno.writeTextFileSync(join(dir, "scripts", "there.ts"), "");
    Deno.writeTextFileSync(
      join(dir, "README.md"),
      [
        "`deno task bench here` `deno task bench <name>` `deno run -A scripts/there.ts x`",
        "`deno run -A main.ts` `deno task <name>`",
        "`deno task gone` `deno task bench gone` `deno run -A scripts/experiments/gone.ts`",
      ].join("\n"),
    );
    assert.deepEqual(missingCommands(dir, ["README.md"]), [
      "README.md: deno task gone (no task gone)",
      "README.md: deno task bench gone (no benchmark gone)",
      "README.md: deno run -A scripts/experiments/gone.ts (no file scripts/experiments/gone.ts)",
    ]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
