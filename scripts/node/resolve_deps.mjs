// Module resolution hook registered by register_deps.mjs: a bare specifier imported from a file
// outside node_modules is resolved as if imported from the dependency folder. Everything else
// (relative `.ts` specifiers included) resolves as Node does by itself.
let base;

export function initialize(data) {
  base = data.base;
}

export function resolve(specifier, context, next) {
  const bare = /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*(\/.*)?$/.test(specifier);
  const parent = context.parentURL ?? "";
  if (bare && parent.startsWith("file:") && !parent.includes("/node_modules/")) {
    return next(specifier, { ...context, parentURL: base });
  }
  return next(specifier, context);
}
