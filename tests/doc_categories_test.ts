/**
 * Every symbol a published entry exports sits in a `@category` group, so the generated
 * documentation opens on the agent developer's `connect()` instead of an alphabetical list.
 */
import assert from "node:assert/strict";

interface DocSymbol {
  readonly name: string;
  readonly declarations: readonly {
    readonly jsDoc?: {
      readonly tags?: readonly { readonly kind: string; readonly doc?: string }[];
    };
  }[];
}

const root = new URL("../", import.meta.url);

Deno.test("docs: every exported symbol of every entry has a @category; connect() comes first", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root))) as {
    exports: Record<string, string>;
  };
  const missing: string[] = [];
  const categories = new Set<string>();
  for (const entry of Object.values(config.exports)) {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["doc", "--json", entry],
      cwd: root,
      stdout: "piped",
      stderr: "null",
    }).output();
    assert.ok(output.success, `deno doc ${entry}`);
    const doc = JSON.parse(new TextDecoder().decode(output.stdout)) as {
      nodes: Record<string, { symbols: DocSymbol[] }>;
    };
    for (const module of Object.values(doc.nodes)) {
      for (const symbol of module.symbols) {
        const tags = symbol.declarations.flatMap((declaration) => declaration.jsDoc?.tags ?? []);
        const category = tags.find((tag) => tag.kind === "category")?.doc?.trim();
        if (category === undefined) missing.push(`${entry}: ${symbol.name}`);
        else categories.add(category);
      }
    }
  }
  assert.deepEqual(missing, [], "exports without a @category");
  assert.equal([...categories].sort()[0], "Agent developers: connect()");
});
