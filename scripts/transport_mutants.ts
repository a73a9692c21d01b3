/**
 * Deliberately breaks the transport code one rule at a time and checks that the transport tests
 * notice each break. Restores every file afterwards. Run: `deno run -A scripts/transport_mutants.ts`.
 * Prints one line per mutant (`caught` or `MISSED`) and exits non-zero when any is missed.
 *
 * @module
 */

interface Mutant {
  name: string;
  file: string;
  from: string;
  to: string;
}

const MUTANTS: Mutant[] = [
  {
    name: "no Accept-Encoding: identity",
    file: "transport/request.ts",
    from: 'const own: [string, string][] = [["accept-encoding", "identity"]];',
    to: "const own: [string, string][] = [];",
  },
  {
    name: "3xx accepted",
    file: "transport/response.ts",
    from: 'response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400)',
    to: "false",
  },
  {
    name: "compressed body accepted",
    file: "transport/response.ts",
    from: 'coding !== "" && coding !== "identity"',
    to: "false",
  },
  {
    name: "Content-Length not checked",
    file: "transport/response.ts",
    from: "if (declared > maxResponseBytes) {",
    to: "if (false) {",
  },
  {
    name: "streamed bytes not capped",
    file: "transport/limited_body.ts",
    from: "total > maxBytes",
    to: "false",
  },
  {
    name: "declared body's bytes not capped",
    file: "transport/limited_body.ts",
    from: "if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);",
    to: "",
  },
  {
    name: "streamed body not bounded by the deadline",
    file: "transport/limited_body.ts",
    from: 'else signal.addEventListener("abort", onAbort, { once: true });',
    to: "",
  },
  {
    name: "declared body not bounded by the deadline",
    file: "transport/limited_body.ts",
    from: "signal === undefined ? read : untilAborted(read, signal)",
    to: "read",
  },
  {
    name: "headers not bounded by the deadline",
    file: "transport/request.ts",
    from:
      "return untilAborted(options.fetch(prepareRequest(input, init, url, options, signal)), signal);",
    to: "return options.fetch(prepareRequest(input, init, url, options, signal));",
  },
  {
    name: "the runtime's fetch sent without the deadline",
    file: "transport/request.ts",
    from: "const prepared = preparedInit(init, signal);",
    to: "const prepared = preparedInit(init, new AbortController().signal);",
  },
  {
    name: "token sent to every origin",
    file: "transport/request.ts",
    from: "url.origin === options.authorization.origin",
    to: "true",
  },
  {
    name: "caller Authorization kept",
    file: "transport/request.ts",
    from: '  "authorization",\n  "cookie",',
    to: '  "cookie",',
  },
  {
    name: "TLS failures not told apart",
    file: "transport/fetch_failure.ts",
    from: '=== "https:" && looksLikeTls(error)',
    to: '=== "https:" && false',
  },
  {
    name: "host names in runtime errors read as TLS",
    file: "transport/fetch_failure.ts",
    from: 'current.message.replace(NAMES_IN_MESSAGE, "")',
    to: "current.message",
  },
  {
    name: "IP literals accepted",
    file: "transport/policy.ts",
    from: "if (literal !== null) {",
    to: 'if (literal === "never") {',
  },
  {
    name: "user info accepted",
    file: "transport/policy.ts",
    from: 'if (url.username !== "" || url.password !== "") {',
    to: "if (false) {",
  },
  {
    name: "metadata name accepted",
    file: "transport/policy.ts",
    from: '"metadata.google.internal",',
    to: "",
  },
  {
    name: "DNS answers not checked",
    file: "transport/policy.ts",
    from: "  for (const address of addresses) {",
    to: "  for (const address of [] as string[]) {",
  },
  {
    name: "6to4 embedding ignored",
    file: "transport/address.ts",
    from: 'if (g[0] === 0x2002) return embedded(groupsToV4(g[1], g[2]), "6to4");',
    to: 'if (g[0] === 0x2002) return result(6, "public");',
  },
  {
    name: "Teredo client not inverted",
    file: "transport/address.ts",
    from: "^ 0xffffffff",
    to: "^ 0",
  },
  {
    name: "caller signal ignored",
    file: "transport/secure_fetch.ts",
    from: "deadlines.start(callerSignal)",
    to: "deadlines.start(undefined)",
  },
  {
    name: "caller abort reported as the deadline",
    file: "transport/fetch_failure.ts",
    from: "callerSignal?.aborted && signal.reason === callerSignal.reason",
    to: "false",
  },
];

const root = new URL("../", import.meta.url);
const only = Deno.args;
const tests = ["address", "fetch", "hostile", "tls", "body_chunks"].map((t) =>
  `tests/transport/${t}_test.ts`
);
let missed = 0;
// `deno run -A scripts/transport_mutants.ts [name fragment...]` runs only the matching mutants.
const selected = MUTANTS.filter((mutant) =>
  only.length === 0 || only.some((part) => mutant.name.includes(part))
);
for (const mutant of selected) {
  const path = new URL(`src/${mutant.file}`, root);
  const original = await Deno.readTextFile(path);
  if (!original.includes(mutant.from)) {
    console.log(`STALE   ${mutant.name}: pattern not found in ${mutant.file}`);
    missed++;
    continue;
  }
  await Deno.writeTextFile(path, original.replace(mutant.from, mutant.to));
  try {
    const { success } = await new Deno.Command(Deno.execPath(), {
      args: ["test", "-A", "--no-check", "--parallel", ...tests],
      cwd: root,
      stdout: "null",
      stderr: "null",
      signal: AbortSignal.timeout(240_000),
    }).output();
    if (success) missed++;
    console.log(`${success ? "MISSED" : "caught"}  ${mutant.name}`);
  } finally {
    await Deno.writeTextFile(path, original);
  }
}
console.log(`${selected.length - missed} of ${selected.length} mutants caught`);
Deno.exit(missed === 0 ? 0 : 1);
