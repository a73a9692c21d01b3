/**
 * The layers point one way: identity ← schema ← session ← catalog ← calls ← gate ←
 * connect / providers / cli, with approvals beside (on identity and schema) and transport at the
 * edge. Read from Deno's own module graph of every published entry point and the CLI, so an
 * import against the flow, or a circle between folders, fails here.
 */
import assert from "node:assert/strict";
import { CONDITIONAL_MODULES, moduleInfo } from "../fixtures/package/package_graph.ts";

const root = new URL("../", import.meta.url);

/** What the top floor (serve, and cli above it) may import. */
const TOP_FLOOR = [
  "base",
  "identity",
  "schema",
  "screen",
  "session",
  "approvals",
  "connect",
  "transport",
  "catalog",
  "calls",
  "gate",
  "inbox",
  "auth",
] as const;

/** What calls may import: what the gate and connect above it may import too. */
const CALLS_FLOOR = ["base", "identity", "schema", "screen", "session", "catalog", "approvals"];

/** What each part of `src/` may import, besides itself. */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  base: [],
  identity: ["base"],
  "transport/runtime": ["transport/resolver", "transport/pinning"],
  "transport/pinning": [],
  transport: ["base", "identity", "transport/runtime", "transport/pinning"],
  schema: ["base", "identity"],
  // The poisoning screen judges a definition, beside schema: neither knows a session.
  screen: ["base", "identity", "schema"],
  // A store checks a grant's arguments schema itself, with the profile's compiler.
  approvals: ["base", "identity", "schema"],
  // OAuth: the hardened fetch and its resolver below it; connect (and the CLI) above it.
  auth: ["base", "identity", "transport", "transport/runtime", "approvals"],
  // One server's session (ServerSession over the hardened fetch, or a host's SDK client through
  // sessionFromClient): its failures are read for the transport's and OAuth's codes. It hears
  // the server for an observer it is given, so the catalog's monitor stays above it.
  session: ["base", "identity", "transport", "auth"],
  catalog: ["base", "identity", "schema", "screen", "session"],
  calls: CALLS_FLOOR,
  // The host's OpenTelemetry objects, typed structurally: no package, no session.
  telemetry: ["base", "identity", "session"],
  gate: [...CALLS_FLOOR, "calls", "telemetry"],
  providers: ["base", "identity", "schema", "screen", "catalog"],
  connect: [
    ...CALLS_FLOOR,
    "calls",
    "gate",
    "transport",
    "providers",
    "auth",
    "telemetry",
  ],
  inbox: ["base", "identity", "approvals", "transport"],
  // `sluice serve`: beside cli, on the public surface of connect (the toolkit, its envelope).
  serve: TOP_FLOOR,
  cli: [...TOP_FLOOR, "serve"],
};

/** The part of `src/` a file belongs to (`undefined` outside `src/`). */
function partOf(path: string): string | undefined {
  const match = /\/src\/(.+)$/.exec(path);
  if (match === null) return undefined;
  const rest = match[1];
  if (!rest.includes("/")) return "base"; // src/errors.ts, src/codes.ts
  if (rest.startsWith("codes/")) return "base"; // the catalog's data, one module per stage
  if (rest.startsWith("transport/runtime/")) return "transport/runtime";
  if (rest === "transport/resolver.ts") return "transport/resolver";
  if (rest === "transport/pinning.ts") return "transport/pinning";
  return rest.slice(0, rest.indexOf("/"));
}

/** The layer a part counts as when others import it. */
function layerOf(part: string): string {
  return part === "transport/resolver" ? "transport" : part;
}

async function moduleGraph(entries: readonly string[]): Promise<Map<string, Set<string>>> {
  const edges = new Map<string, Set<string>>();
  for (const entry of entries) {
    for (const module of await moduleInfo(entry)) {
      if (!module.specifier.startsWith("file:")) continue;
      const targets = edges.get(module.specifier) ?? new Set<string>();
      for (const dependency of module.dependencies ?? []) {
        for (const target of [dependency.code?.specifier, dependency.type?.specifier]) {
          if (target?.startsWith("file:")) targets.add(target);
        }
      }
      edges.set(module.specifier, targets);
    }
  }
  return edges;
}

const entryPoints = async (): Promise<string[]> => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root))) as {
    exports: Record<string, string>;
  };
  // The runtime modules the npm package's export conditions select are in no entry's graph.
  const conditional = CONDITIONAL_MODULES.flatMap((module) => module.conditions.map(([, f]) => f));
  return [...Object.values(config.exports), "cli.ts", ...new Set(conditional)];
};

/** The imports against the flow and the first folder circle of a module graph. */
function violations(edges: ReadonlyMap<string, ReadonlySet<string>>, base: string) {
  const against: string[] = [];
  const folderEdges = new Map<string, Set<string>>();
  let checked = 0;
  for (const [from, targets] of edges) {
    const fromPart = partOf(from);
    if (fromPart === undefined) continue;
    for (const to of targets) {
      const toPart = partOf(to);
      if (toPart === undefined) continue;
      checked++;
      const fromLayer = layerOf(fromPart);
      const toLayer = layerOf(toPart);
      if (fromLayer === toLayer) continue;
      const allowed = ALLOWED[fromPart] ?? ALLOWED[fromLayer] ?? [];
      if (!allowed.includes(toPart) && !allowed.includes(toLayer)) {
        against.push(`${from.slice(base.length)} -> ${to.slice(base.length)}`);
      }
      // A runtime resolver implementing the contract is the adapter pattern, not a circle.
      if (toPart === "transport/resolver") continue;
      const set = folderEdges.get(fromLayer) ?? new Set<string>();
      set.add(toLayer);
      folderEdges.set(fromLayer, set);
    }
  }
  // A circle between folders, found by depth-first search over the folder graph.
  const state = new Map<string, "open" | "done">();
  const circle = (node: string, path: string[]): string[] | undefined => {
    if (state.get(node) === "open") return [...path, node];
    if (state.get(node) === "done") return undefined;
    state.set(node, "open");
    for (const next of folderEdges.get(node) ?? []) {
      const found = circle(next, [...path, node]);
      if (found) return found;
    }
    state.set(node, "done");
    return undefined;
  };
  let cycle: string[] | undefined;
  for (const node of folderEdges.keys()) cycle ??= circle(node, []);
  return { against, cycle, checked };
}

Deno.test("layering: no import in src/ goes against the flow, and no folder imports in a circle", async () => {
  const { against, cycle, checked } = violations(await moduleGraph(await entryPoints()), root.href);
  assert.ok(checked > 100, `the graph was read (${checked} src edges)`);
  assert.deepEqual(against, [], "imports against the flow");
  assert.equal(cycle, undefined, "folders import in a circle");
});

Deno.test("layering: the checker finds an import against the flow and a circle", () => {
  const graph = (pairs: [string, string][]) => {
    const edges = new Map<string, Set<string>>();
    for (const [from, to] of pairs) {
      const set = edges.get(`file:///r/src/${from}`) ?? new Set<string>();
      set.add(`file:///r/src/${to}`);
      edges.set(`file:///r/src/${from}`, set);
    }
    return edges;
  };
  const found = violations(
    graph([
      ["calls/registration.ts", "gate/gate.ts"],
      ["gate/gate.ts", "calls/envelope.ts"],
      ["transport/runtime/deno.ts", "transport/secure_fetch.ts"],
      ["transport/runtime/node.ts", "transport/resolver.ts"],
      ["approvals/memory.ts", "identity/json.ts"],
    ]),
    "file:///r/",
  );
  assert.deepEqual(found.against, [
    "src/calls/registration.ts -> src/gate/gate.ts",
    "src/transport/runtime/deno.ts -> src/transport/secure_fetch.ts",
  ]);
  assert.deepEqual(found.cycle, ["calls", "gate", "calls"]);
});

/** The repository-relative files a module imports by relative specifier (static or dynamic). */
function relativeImports(file: string, text: string): string[] {
  const targets: string[] = [];
  for (
    const match of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)["'](\.\.?\/[^"']+)["']/g)
  ) {
    targets.push(new URL(match[1], new URL(file, root)).href.slice(root.href.length));
  }
  return targets;
}

/** Which folders a folder's modules may import: the product, fixtures, the lab and the tests. */
const MAY_IMPORT: Readonly<Record<string, (target: string) => boolean>> = {
  // The product: src/ and the root entries import only the product.
  product: (target) => !/^(tests|scripts|fixtures)\//.test(target),
  // What tests and scripts share imports the product and itself.
  fixtures: (target) => !/^(tests|scripts)\//.test(target),
  // Benchmarks, builds and checks: never the tests' own helpers.
  scripts: (target) => !target.startsWith("tests/"),
  // Tests: never the scripts (what both need lives in fixtures/).
  tests: (target) => !target.startsWith("scripts/"),
};

Deno.test("layering: tests import no scripts/, nothing outside tests/ imports tests/, and the product imports neither nor fixtures/", async () => {
  const listed = new Deno.Command("git", { args: ["ls-files"], cwd: root, stdout: "piped" });
  const files = new TextDecoder().decode((await listed.output()).stdout).split("\n")
    .filter((file) => /\.(ts|mjs)$/.test(file) && !file.startsWith("fixtures/schemas/"));
  const wrong: string[] = [];
  let checked = 0;
  for (const file of files) {
    const folder = /^(tests|scripts|fixtures)\//.exec(file)?.[1] ?? "product";
    const text = await Deno.readTextFile(new URL(file, root)).catch(() => "");
    for (const target of relativeImports(file, text)) {
      checked++;
      if (!MAY_IMPORT[folder](target)) wrong.push(`${file} -> ${target}`);
    }
  }
  assert.ok(checked > 500, `the imports were read (${checked})`);
  assert.deepEqual(wrong, []);
});

/** The module-graph table of docs/development.md: each part with what it may import. */
function documentedGraph(page: string): Record<string, string[]> {
  const start = page.indexOf("| Part of `src/`");
  assert.ok(start >= 0, "docs/development.md has the module graph table");
  const rows = page.slice(start).split("\n").slice(2);
  const graph: Record<string, string[]> = {};
  for (const row of rows) {
    if (!row.startsWith("|")) break;
    const [part, imports] = row.split("|").slice(1, 3);
    const name = /`([^`]+)`/.exec(part)?.[1];
    assert.ok(name !== undefined, `a part in: ${row}`);
    graph[name] = imports.trim().startsWith("nothing")
      ? []
      : [...imports.matchAll(/`([^`]+)`/g)].map((match) => match[1]);
  }
  return graph;
}

Deno.test("layering: docs/development.md's module graph is the ALLOWED table", async () => {
  const page = await Deno.readTextFile(new URL("docs/development.md", root));
  const sorted = (graph: Readonly<Record<string, readonly string[]>>) =>
    Object.fromEntries(Object.keys(graph).sort().map((part) => [part, [...graph[part]].sort()]));
  assert.deepEqual(sorted(documentedGraph(page)), sorted(ALLOWED));
});
