/**
 * The optional npm packages: their table agrees with deno.json, and a missing one becomes
 * `dependency_missing` naming what to install while any other failure keeps its own error. The
 * packed package is checked on real runtimes without them by `scripts/check_npm.ts`.
 */
import assert from "node:assert/strict";
import { dependencyMissing, loadOptional, OPTIONAL_PACKAGES } from "../src/optional_packages.ts";
import { codeOf } from "../src/codes.ts";
import { pinnedVersions } from "../fixtures/package/npm_cache.ts";

Deno.test("optional packages: the version to install is the one deno.json pins", async () => {
  const pinned = await pinnedVersions();
  const imports: Record<string, string> = JSON.parse(
    await Deno.readTextFile(new URL("../deno.json", import.meta.url)),
  ).imports;
  for (const [name, entry] of Object.entries(OPTIONAL_PACKAGES)) {
    assert.equal(entry.tested.at(-1), pinned[name], name);
    // Every other tested version is pinned too, under an alias.
    for (const version of entry.tested.slice(0, -1)) {
      assert.ok(Object.values(imports).includes(`npm:${name}@${version}`), `${name}@${version}`);
    }
  }
});

/** The error Node (and Bun) throw for a package that is not installed. */
const notFound = (name: string) =>
  Object.assign(new Error(`Cannot find package '${name}' imported from /app/node_modules/x.js`), {
    code: "ERR_MODULE_NOT_FOUND",
  });

Deno.test("loadOptional: a missing package is dependency_missing with the install line", async () => {
  const error = await loadOptional("postgres", () => Promise.reject(notFound("postgres"))).then(
    () => undefined,
    (error) => error,
  );
  assert.equal(codeOf(error), "dependency_missing");
  assert.equal(
    error.message,
    "@sluice/mcp/postgres needs the npm package postgres, which is not installed: " +
      "npm install postgres@3.4.9.",
  );
  assert.equal(error.cause.code, "ERR_MODULE_NOT_FOUND");
  assert.match(dependencyMissing("ai").message, /npm install ai@7\.0\.173 \(\^6\.0\.0 \|\| \^7/);
});

Deno.test("loadOptional: other failures keep their own error", async () => {
  const failures = [
    // A platform binary of the package (its own dependency), not the package itself.
    Object.assign(new Error("Cannot find module '@libsql/linux-x64-gnu'"), {
      code: "MODULE_NOT_FOUND",
    }),
    notFound("other-package"),
    new TypeError("libsql: something else went wrong"),
  ];
  for (const failure of failures) {
    const error = await loadOptional("libsql", () => Promise.reject(failure)).then(
      () => undefined,
      (error) => error,
    );
    assert.equal(error, failure);
  }
  assert.deepEqual(await loadOptional("libsql", () => Promise.resolve({ ok: 1 })), { ok: 1 });
});
