// Module resolution hook registered by register_deps.mjs: a bare specifier imported from a file
// outside node_modules is resolved as if imported from the dependency folder. The sources' own
// runtime choice (`src/transport/runtime/mod.ts`, feature detection without Node's pinning) is
// resolved to the module the npm package's `node` export condition selects (`on_node.ts`; the
// table is CONDITIONAL_MODULES in fixtures/package/package_graph.ts), so Node running the sources
// pins as the installed package does. Everything else (relative `.ts` specifiers included)
// resolves as Node does by itself.
let base;

const RUNTIME_MODULE = "/src/transport/runtime/mod.ts";
const ON_NODE = "/src/transport/runtime/on_node.ts";

export function initialize(data) {
  base = data.base;
}

export async function resolve(specifier, context, next) {
  const bare = /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*(\/.*)?$/.test(specifier);
  const parent = context.parentURL ?? "";
  if (bare && parent.startsWith("file:") && !parent.includes("/node_modules/")) {
    return next(specifier, { ...context, parentURL: base });
  }
  const resolved = await next(specifier, context);
  if (resolved.url.endsWith(RUNTIME_MODULE)) {
    return { ...resolved, url: resolved.url.slice(0, -RUNTIME_MODULE.length) + ON_NODE };
  }
  return resolved;
}
