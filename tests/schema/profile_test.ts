/**
 * The profile over real servers' tool lists: the four captured by scripts/capture_schemas.ts
 * (fixtures/schemas/) and the ten of the shared corpus (../shared/corpus-sample beside the
 * clone, or SLUICE_CORPUS_DIR). Expected verdicts were written from reading the schemas.
 */
import assert from "node:assert/strict";
import { checkSchema, compileSchema, type SchemaProblem } from "../../mod.ts";

interface Capture {
  server: string;
  version: string;
  protocolVersion: string;
  tools: { name: string; inputSchema: unknown; outputSchema?: unknown }[];
}

type Verdicts = { accepted: string[]; rejected: Record<string, SchemaProblem[]> };

const root = new URL("../..", import.meta.url);

function readCapture(url: URL): Capture {
  return JSON.parse(Deno.readTextFileSync(url)) as Capture;
}

/** A tool is accepted when its input schema and, if it has one, its output schema fit. */
function verdicts(capture: Capture): Verdicts {
  const out: Verdicts = { accepted: [], rejected: {} };
  for (const tool of capture.tools) {
    const problems: SchemaProblem[] = [];
    for (
      const [field, schema] of [["inputSchema", tool.inputSchema], [
        "outputSchema",
        tool.outputSchema,
      ]] as const
    ) {
      if (schema === undefined) continue;
      const result = checkSchema(schema);
      if (!result.ok) {
        problems.push(...result.problems.map((p) => ({ ...p, path: `/${field}${p.path}` })));
      }
    }
    if (problems.length === 0) out.accepted.push(tool.name);
    else out.rejected[tool.name] = problems;
  }
  return out;
}

const CAPTURED: Record<string, Verdicts> = {
  "fastmcp@4.20.16.json": {
    accepted: ["search_notes", "create_event", "set_labels", "ping"],
    rejected: {},
  },
  "server-everything@2026.8.31.json": {
    accepted: [
      "echo",
      "get-annotated-message",
      "get-env",
      "get-resource-links",
      "get-resource-reference",
      "get-structured-content",
      "get-sum",
      "get-tiny-image",
      "gzip-file-as-resource",
      "toggle-simulated-logging",
      "toggle-subscriber-updates",
      "trigger-long-running-operation",
      "simulate-research-query",
    ],
    rejected: {},
  },
  "server-filesystem@2026.8.31.json": {
    accepted: [
      "read_file",
      "read_text_file",
      "read_media_file",
      "read_multiple_files",
      "write_file",
      "edit_file",
      "create_directory",
      "list_directory",
      "list_directory_with_sizes",
      "directory_tree",
      "move_file",
      "search_files",
      "get_file_info",
      "list_allowed_directories",
    ],
    rejected: {},
  },
  "server-memory@2026.8.31.json": {
    accepted: [
      "create_entities",
      "create_relations",
      "add_observations",
      "delete_entities",
      "delete_observations",
      "delete_relations",
      "read_graph",
      "search_nodes",
      "open_nodes",
    ],
    rejected: {},
  },
};

for (const [file, expected] of Object.entries(CAPTURED)) {
  Deno.test(`captured ${file}: accepted and rejected tools`, () => {
    const capture = readCapture(new URL(`fixtures/schemas/${file}`, root));
    assert.equal(`${capture.server}@${capture.version}.json`, file);
    assert.deepEqual(verdicts(capture), expected);
  });
}

Deno.test("captured schemas validate real arguments", () => {
  const filesystem = readCapture(
    new URL("fixtures/schemas/server-filesystem@2026.8.31.json", root),
  );
  const edit = filesystem.tools.find((tool) => tool.name === "edit_file")!;
  const validateEdit = compileSchema(edit.inputSchema);
  assert.deepEqual(
    validateEdit({ path: "/tmp/a", edits: [{ oldText: "a", newText: "b" }], dryRun: true }),
    { valid: true },
  );
  const badEdit = validateEdit({ path: "/tmp/a", edits: [{ oldText: "a" }] });
  assert.equal(badEdit.valid, false);
  assert.ok(
    !badEdit.valid && badEdit.errors.some((e) => e.path === "/edits/0" && e.keyword === "required"),
  );

  const fastmcp = readCapture(new URL("fixtures/schemas/fastmcp@4.20.16.json", root));
  const event = compileSchema(
    fastmcp.tools.find((tool) => tool.name === "create_event")!.inputSchema,
  );
  const args = { title: "t", start: "2026-11-30T02:00:00Z", attendees: [{ email: "a.b@c.io" }] };
  assert.deepEqual(event(args), { valid: true });
  // zod's email pattern (admitted: each repeated group ends at a separator `.`) is asserted.
  const bad = event({ ...args, attendees: [{ email: "a..b@c.io" }] });
  assert.deepEqual(bad.valid ? [] : bad.errors.map((e) => `${e.path} ${e.keyword}`), [
    " properties",
    "/attendees items",
    "/attendees/0 properties",
    "/attendees/0/email pattern",
  ]);
});

Deno.test("a keyword planted in each captured schema is reported at its exact path", () => {
  for (const file of Object.keys(CAPTURED)) {
    const capture = readCapture(new URL(`fixtures/schemas/${file}`, root));
    for (const tool of capture.tools) {
      const schema = structuredClone(tool.inputSchema) as {
        properties?: Record<string, Record<string, unknown>>;
      };
      const [name] = Object.keys(schema.properties ?? {});
      if (name === undefined || typeof schema.properties![name] !== "object") continue;
      schema.properties![name]["x-planted"] = true;
      const pointer = `/properties/${name.replaceAll("~", "~0").replaceAll("/", "~1")}/x-planted`;
      assert.deepEqual(
        checkSchema(schema),
        {
          ok: false,
          problems: [{ code: "schema_keyword_unsupported", keyword: "x-planted", path: pointer }],
        },
        `${file} ${tool.name}`,
      );
    }
  }
});

/** The shared corpus: tool counts written from reading each file; no tool is rejected. */
const CORPUS: Record<string, { tools: number; rejected: Record<string, SchemaProblem[]> }> = {
  "airtable-mcp-server.json": { tools: 16, rejected: {} },
  "chrome-devtools-mcp.json": { tools: 32, rejected: {} },
  "circleci__mcp-server-circleci.json": { tools: 13, rejected: {} },
  "cloudflare__mcp-server-cloudflare.json": { tools: 89, rejected: {} },
  "kubernetes-mcp-server.json": { tools: 20, rejected: {} },
  "modelcontextprotocol__server-github.json": { tools: 26, rejected: {} },
  "notionhq__notion-mcp-server.json": { tools: 24, rejected: {} },
  "playwright__mcp.json": { tools: 25, rejected: {} },
  "sentry__mcp-server.json": { tools: 22, rejected: {} },
  "wonderwhy-er__desktop-commander.json": { tools: 26, rejected: {} },
};

function corpusDir(): URL | undefined {
  const fromEnv = Deno.env.get("SLUICE_CORPUS_DIR");
  const dir = fromEnv ? new URL(`file://${fromEnv.replace(/\/?$/, "/")}`) : new URL(
    "../shared/corpus-sample/",
    root,
  );
  try {
    return Deno.statSync(dir).isDirectory ? dir : undefined;
  } catch {
    return undefined;
  }
}

const corpus = corpusDir();
if (corpus === undefined) {
  console.warn(
    "schema_profile_test: shared corpus not found at ../shared/corpus-sample " +
      "(set SLUICE_CORPUS_DIR); corpus tests are skipped",
  );
}

for (const [file, expected] of Object.entries(CORPUS)) {
  Deno.test({
    name: `corpus ${file}: every tool accepted or rejected as pinned`,
    ignore: corpus === undefined,
    fn() {
      const capture = readCapture(new URL(file, corpus));
      const result = verdicts(capture);
      assert.equal(capture.tools.length, expected.tools);
      assert.deepEqual(result.rejected, expected.rejected);
      assert.deepEqual(result.accepted, capture.tools.map((tool) => tool.name));
    },
  });
}

Deno.test({
  name: "corpus: local $ref, draft-07 and 2020-12 schemas validate real arguments",
  ignore: corpus === undefined,
  fn() {
    const tool = (file: string, name: string) =>
      readCapture(new URL(file, corpus)).tools.find((t) => t.name === name)!;
    // kubernetes-mcp-server's field selector: the separated-repetition pattern is asserted.
    const pods = compileSchema(tool("kubernetes-mcp-server.json", "pods_list").inputSchema);
    assert.deepEqual(pods({ fieldSelector: "status.phase=Running,spec.nodeName!=n1" }), {
      valid: true,
    });
    const badSelector = pods({ fieldSelector: "status.phase" });
    assert.ok(
      !badSelector.valid &&
        badSelector.errors.some((e) => e.path === "/fieldSelector" && e.keyword === "pattern"),
    );
    // notion: `$ref` into `$defs` is resolved by the validator.
    const notion = tool("notionhq__notion-mcp-server.json", "API-post-page").inputSchema;
    assert.ok(JSON.stringify(notion).includes('"$ref":"#/$defs/'));
    const post = compileSchema(notion);
    const rejected = post({ parent: { page_id: 1 } });
    assert.equal(rejected.valid, false);
  },
});
