// secureFetch against real loopback servers: the SSRF table (refused before any socket), token
// scoping, headers, the caller's signal, and the report.
import assert from "node:assert/strict";
import {
  secureFetch,
  TransportError,
  type TransportErrorCode,
  transportErrorCode,
} from "../../src/transport/mod.ts";
import {
  drain,
  sleep,
  startHttpServer,
  startRawServer,
  tableResolver,
} from "../support/transport_servers.ts";
import { bundleForBrowser } from "../support/bundle.ts";

// Names a hostile DNS could answer with; the injected resolver plays that DNS.
const DNS = {
  "public.test": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
  "public.localhost": ["93.184.216.34"],
  "internal.test": ["10.0.0.5"],
  "lan.test": ["192.168.1.20"],
  "corp.test": ["172.20.0.1"],
  "cgnat.test": ["100.64.1.1"],
  "linklocal.test": ["169.254.10.10"],
  "imds.test": ["169.254.169.254"],
  "imds6.test": ["fd00:ec2::254"],
  "loop.test": ["127.0.0.1"],
  "loop6.test": ["::1"],
  "zero.test": ["0.0.0.0"],
  "mixed.test": ["93.184.216.34", "192.168.0.1"],
  "mixed6.test": ["2606:2800:220:1:248:1893:25c8:1946", "fe80::1"],
  "ula.test": ["fd12:3456::1"],
  "mapped.test": ["::ffff:127.0.0.1"],
  "sixtofour.test": ["2002:c0a8:0101::1"],
  "nat64.test": ["64:ff9b::10.0.0.1"],
  "teredo.test": ["2001:0:4136:e378:8000:63bf:f5ff:fffe"],
  "multicast.test": ["224.0.0.251"],
  "docs.test": ["192.0.2.10"],
  "garbage.test": ["not-an-address"],
  "empty.test": [],
  "broken.test": new Error("SERVFAIL"),
} satisfies Record<string, readonly string[] | Error>;

type Case = readonly [url: string, code: TransportErrorCode];

const SSRF_TABLE: readonly Case[] = [
  // Schemes
  ["http://public.test/mcp", "transport_scheme_refused"],
  ["ftp://public.test/", "transport_scheme_refused"],
  ["file:///etc/passwd", "transport_scheme_refused"],
  ["ws://public.test/", "transport_scheme_refused"],
  ["data:text/plain,hello", "transport_scheme_refused"],
  ["http://127.0.0.1/", "transport_scheme_refused"],
  ["http://localhost/", "transport_scheme_refused"],
  // Not a URL at all (and an IPv4 literal WHATWG refuses to parse)
  ["mcp.example.com/mcp", "transport_url_invalid"],
  ["https://256.0.0.1/", "transport_url_invalid"],
  // User info
  ["https://user:pass@public.test/", "transport_userinfo_refused"],
  ["https://user@public.test/", "transport_userinfo_refused"],
  ["https://:secret@public.test/", "transport_userinfo_refused"],
  // IP literals in every spelling (WHATWG URL normalizes the loose ones to dotted form)
  ["https://127.0.0.1/", "transport_ip_literal_refused"],
  ["https://127.0.0.1./", "transport_ip_literal_refused"],
  ["https://2130706433/", "transport_ip_literal_refused"],
  ["https://0x7f000001/", "transport_ip_literal_refused"],
  ["https://0x7f.1/", "transport_ip_literal_refused"],
  ["https://0177.0.0.1/", "transport_ip_literal_refused"],
  ["https://127.1/", "transport_ip_literal_refused"],
  ["https://0/", "transport_ip_literal_refused"],
  ["https://%31%32%37.0.0.1/", "transport_ip_literal_refused"],
  ["https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/", "transport_ip_literal_refused"],
  ["https://169.254.169.254/latest/meta-data/", "transport_ip_literal_refused"],
  ["https://10.0.0.1/", "transport_ip_literal_refused"],
  ["https://8.8.8.8/", "transport_ip_literal_refused"],
  ["https://[::1]/", "transport_ip_literal_refused"],
  ["https://[0:0:0:0:0:0:0:1]/", "transport_ip_literal_refused"],
  ["https://[::ffff:127.0.0.1]/", "transport_ip_literal_refused"],
  ["https://[::ffff:7f00:1]/", "transport_ip_literal_refused"],
  ["https://[::ffff:a9fe:a9fe]/", "transport_ip_literal_refused"],
  ["https://[fd00:ec2::254]/", "transport_ip_literal_refused"],
  ["https://[2002:c0a8:101::1]/", "transport_ip_literal_refused"],
  ["https://[64:ff9b::a00:1]/", "transport_ip_literal_refused"],
  ["https://[2606:4700:4700::1111]/", "transport_ip_literal_refused"],
  // Refused names
  ["https://metadata.google.internal/computeMetadata/v1/", "transport_host_refused"],
  ["https://METADATA.GOOGLE.INTERNAL./", "transport_host_refused"],
  ["https://metadata/", "transport_host_refused"],
  ["https://localhost/", "transport_host_refused"],
  ["https://api.localhost/", "transport_host_refused"],
  ["https://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54/", "transport_host_refused"],
  ["https://metadata.goog/", "transport_host_refused"],
  // Names whose answers are not public
  ["https://internal.test/", "transport_address_refused"],
  ["https://lan.test/", "transport_address_refused"],
  ["https://corp.test/", "transport_address_refused"],
  ["https://cgnat.test/", "transport_address_refused"],
  ["https://linklocal.test/", "transport_address_refused"],
  ["https://imds.test/", "transport_address_refused"],
  ["https://imds6.test/", "transport_address_refused"],
  ["https://loop.test/", "transport_address_refused"],
  ["https://loop6.test/", "transport_address_refused"],
  ["https://zero.test/", "transport_address_refused"],
  ["https://mixed.test/", "transport_address_refused"],
  ["https://mixed6.test/", "transport_address_refused"],
  ["https://ula.test/", "transport_address_refused"],
  ["https://mapped.test/", "transport_address_refused"],
  ["https://sixtofour.test/", "transport_address_refused"],
  ["https://nat64.test/", "transport_address_refused"],
  ["https://teredo.test/", "transport_address_refused"],
  ["https://multicast.test/", "transport_address_refused"],
  ["https://docs.test/", "transport_address_refused"],
  ["https://garbage.test/", "transport_address_refused"],
  ["https://empty.test/", "transport_dns_failed"],
  ["https://broken.test/", "transport_dns_failed"],
  ["https://unknown.test/", "transport_dns_failed"],
];

/** An underlying fetch that must never be reached; it records any call. */
function recordingFetch() {
  const calls: string[] = [];
  const fetch = (input: RequestInfo | URL): Promise<Response> => {
    calls.push(input instanceof Request ? input.url : String(input));
    return Promise.resolve(new Response("reached"));
  };
  return { calls, fetch };
}

async function refusal(promise: Promise<unknown>): Promise<TransportError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof TransportError, `not a TransportError: ${error}`);
    return error;
  }
  assert.fail("expected a refusal");
}

Deno.test(`SSRF table: ${SSRF_TABLE.length} URLs refused with their code before any fetch`, async () => {
  assert.ok(SSRF_TABLE.length >= 30);
  const { calls, fetch } = recordingFetch();
  const dns = tableResolver(DNS);
  const safeFetch = secureFetch({ fetch, resolve: dns.resolve });
  for (const [url, code] of SSRF_TABLE) {
    const error = await refusal(safeFetch(url));
    assert.equal(error.code, code, url);
    assert.equal(calls.length, 0, `underlying fetch reached for ${url}`);
  }
  // Names refused on sight, and every IP literal, never reach the resolver either.
  for (const asked of dns.asked) assert.match(asked, /\.test$/);
  assert.ok(!dns.asked.includes("metadata.google.internal"));
  // Control: the same function does reach the underlying fetch for a public name.
  const response = await safeFetch("https://public.test/mcp");
  assert.equal(await response.text(), "reached");
  assert.deepEqual(calls, ["https://public.test/mcp"]);
});

Deno.test("the loopback option admits loopback only, never private or disguised loopback", async () => {
  const { calls, fetch } = recordingFetch();
  const dns = tableResolver(DNS);
  const safeFetch = secureFetch({ fetch, resolve: dns.resolve, dangerouslyAllowLoopback: true });
  const refused: Case[] = [
    ["http://10.0.0.1/", "transport_scheme_refused"],
    ["http://public.test/", "transport_scheme_refused"],
    ["http://loop.test/", "transport_scheme_refused"], // http only to a loopback literal/name
    ["https://10.0.0.1/", "transport_ip_literal_refused"],
    ["https://[::ffff:127.0.0.1]/", "transport_ip_literal_refused"],
    ["https://[2002:7f00:1::]/", "transport_ip_literal_refused"],
    ["https://lan.test/", "transport_address_refused"],
    ["https://mapped.test/", "transport_address_refused"],
    ["https://metadata.google.internal/", "transport_host_refused"],
    // Plain http to a loopback name that resolves anywhere but loopback.
    ["http://public.localhost/", "transport_address_refused"],
  ];
  for (const [url, code] of refused) {
    assert.equal((await refusal(safeFetch(url))).code, code, url);
  }
  assert.equal(calls.length, 0);
  for (const url of ["http://127.0.0.1:9/", "http://[::1]:9/", "https://loop.test/"]) {
    await (await safeFetch(url)).text();
  }
  assert.equal(calls.length, 3);
});

Deno.test("refused URLs open no socket: a real listener accepts nothing", async () => {
  const server = startRawServer((conn) => {
    conn.close();
    return Promise.resolve();
  });
  try {
    const port = server.port;
    const dns = tableResolver({ "here.test": ["127.0.0.1"] });
    // The real global fetch underneath: a refusal that slipped through would connect.
    const safeFetch = secureFetch({ resolve: dns.resolve, timeoutMs: 2_000 });
    const urls: Case[] = [
      [`https://127.0.0.1:${port}/`, "transport_ip_literal_refused"],
      [`https://2130706433:${port}/`, "transport_ip_literal_refused"],
      [`https://[::ffff:7f00:1]:${port}/`, "transport_ip_literal_refused"],
      [`http://127.0.0.1:${port}/`, "transport_scheme_refused"],
      [`http://localhost:${port}/`, "transport_scheme_refused"],
      [`https://here.test:${port}/`, "transport_address_refused"],
    ];
    for (const [url, code] of urls) {
      assert.equal((await refusal(safeFetch(url))).code, code, url);
    }
    await sleep(100);
    assert.equal(server.accepted(), 0);
    // Control: the counter does see a real connection to the same port.
    const probe = await Deno.connect({ hostname: "127.0.0.1", port });
    probe.close();
    for (let i = 0; i < 50 && server.accepted() === 0; i++) await sleep(10);
    assert.equal(server.accepted(), 1);
  } finally {
    await server.close();
  }
});

Deno.test("requests reach a loopback server with identity encoding and caller headers", async () => {
  const server = startHttpServer(async (request) => {
    const body = await request.text();
    return Response.json({ method: request.method, body, path: new URL(request.url).pathname });
  });
  try {
    const dns = tableResolver({ localhost: ["127.0.0.1"] });
    const safeFetch = secureFetch({ dangerouslyAllowLoopback: true, resolve: dns.resolve });
    const response = await safeFetch(`http://localhost:${server.port}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "mcp-protocol-version": "2026-07-28",
        "accept-encoding": "gzip, br",
        cookie: "session=abc",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), {
      method: "POST",
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      path: "/mcp",
    });
    const seen = server.requests[0];
    assert.equal(seen.get("accept-encoding"), "identity");
    assert.equal(seen.get("mcp-protocol-version"), "2026-07-28");
    assert.equal(seen.get("content-type"), "application/json");
    assert.equal(seen.get("cookie"), null);
    // A string body keeps its length: it is not re-streamed and sent chunked.
    assert.equal(seen.get("content-length"), "46");
    assert.equal(seen.get("transfer-encoding"), null);
    assert.deepEqual(dns.asked, ["localhost"]);

    // A Request object as input, with a streamed body, goes through the same path.
    const streamed = new Request(`http://127.0.0.1:${server.port}/stream`, {
      method: "POST",
      body: new Blob(["part one, ", "part two"]).stream(),
      duplex: "half",
    } as RequestInit);
    const echoed = await (await safeFetch(streamed)).json();
    assert.equal(echoed.body, "part one, part two");

    // A bodiless status passes through.
    const noContent = startHttpServer(() => new Response(null, { status: 204 }));
    try {
      const empty = await safeFetch(`${noContent.origin}/`);
      assert.equal(empty.status, 204);
      assert.equal(empty.body, null);
    } finally {
      await noContent.close();
    }
  } finally {
    await server.close();
  }
});

const TOKEN = "tok_SENTINEL_5c1d3e9f";

Deno.test("the bearer token goes to its own origin only, never to another", async () => {
  const own = startHttpServer(() => new Response("own"));
  const other = startHttpServer(() => new Response("other"));
  try {
    const safeFetch = secureFetch({
      dangerouslyAllowLoopback: true,
      token: TOKEN,
      tokenOrigin: `${own.origin}/mcp`,
    });
    assert.equal(await (await safeFetch(`${own.origin}/mcp`)).text(), "own");
    assert.equal(await (await safeFetch(`${own.origin}/elsewhere`)).text(), "own");
    // Another origin (same host, other port); a caller-set header must not slip through either.
    assert.equal(
      await (await safeFetch(`${other.origin}/mcp`, { headers: { authorization: "Bearer x" } }))
        .text(),
      "other",
    );
    assert.equal(
      await (await safeFetch(
        new Request(`${other.origin}/mcp`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        }),
      )).text(),
      "other",
    );
    assert.deepEqual(own.requests.map((h) => h.get("authorization")), [
      `Bearer ${TOKEN}`,
      `Bearer ${TOKEN}`,
    ]);
    assert.deepEqual(other.requests.map((h) => h.get("authorization")), [null, null]);
    assert.equal(JSON.stringify(safeFetch.describe()).includes(TOKEN), false);
    assert.equal(safeFetch.describe().tokenOrigin, own.origin);
  } finally {
    await own.close();
    await other.close();
  }
});

Deno.test("a Headers object (as the SDK passes) gets the same header rules", async () => {
  const own = startHttpServer(() => new Response("own"));
  const other = startHttpServer(() => new Response("other"));
  const callerHeaders = () =>
    new Headers({
      authorization: "Bearer caller",
      cookie: "session=abc",
      "proxy-authorization": "Basic eA==",
      "accept-encoding": "gzip, br",
      "mcp-session-id": "s-1",
      "content-type": "application/json",
    });
  try {
    const safeFetch = secureFetch({
      dangerouslyAllowLoopback: true,
      token: TOKEN,
      tokenOrigin: own.origin,
    });
    const given = callerHeaders();
    for (const origin of [own.origin, other.origin]) {
      await (await safeFetch(new URL(`${origin}/mcp`), {
        method: "POST",
        headers: given,
        body: "{}",
      }))
        .text();
    }
    // The caller's object is left as it was.
    assert.equal(given.get("authorization"), "Bearer caller");
    for (const [server, authorization] of [[own, `Bearer ${TOKEN}`], [other, null]] as const) {
      const seen = server.requests[0];
      assert.equal(seen.get("authorization"), authorization);
      assert.equal(seen.get("cookie"), null);
      assert.equal(seen.get("proxy-authorization"), null);
      assert.equal(seen.get("accept-encoding"), "identity");
      assert.equal(seen.get("mcp-session-id"), "s-1");
      assert.equal(seen.get("content-type"), "application/json");
    }
  } finally {
    await own.close();
    await other.close();
  }
});

function assertTokenAbsent(error: unknown, label: string): void {
  assert.ok(error instanceof TransportError, label);
  for (
    const text of [
      error.message,
      String(error),
      JSON.stringify(error),
      error.stack ?? "",
      Deno.inspect(error, { depth: 10 }),
      String(error.cause),
    ]
  ) assert.equal(text.includes(TOKEN), false, `${label}: token leaked`);
  assert.equal(transportErrorCode(new Error("wrapped", { cause: error })), error.code);
}

Deno.test("the token never appears in any error", async () => {
  const slow = startHttpServer(async () => {
    await sleep(400);
    return new Response("late");
  });
  const redirect = startHttpServer(() =>
    new Response(null, { status: 302, headers: { location: `https://x.test/?t=${TOKEN}` } })
  );
  try {
    const closedPort = (() => {
      const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const port = (listener.addr as Deno.NetAddr).port;
      listener.close();
      return port;
    })();
    const make = (origin: string, timeoutMs = 5_000) =>
      secureFetch({ dangerouslyAllowLoopback: true, token: TOKEN, tokenOrigin: origin, timeoutMs });
    const cases: [string, () => Promise<unknown>, TransportErrorCode][] = [
      ["timeout", () => make(slow.origin, 100)(`${slow.origin}/`), "transport_timeout"],
      [
        "redirect",
        () => make(redirect.origin)(`${redirect.origin}/`),
        "transport_redirect_refused",
      ],
      [
        "connection refused",
        () => make(`http://127.0.0.1:${closedPort}`)(`http://127.0.0.1:${closedPort}/`),
        "transport_failed",
      ],
      [
        "scheme",
        () => make("https://public.test")(`http://public.test/?token=${TOKEN}`),
        "transport_scheme_refused",
      ],
    ];
    for (const [label, start, code] of cases) {
      const error = await refusal(start());
      assert.equal(error.code, code, label);
      assertTokenAbsent(error, label);
    }
    for (
      const options of [
        { token: TOKEN },
        { token: `${TOKEN}\r\nx-injected: 1`, tokenOrigin: "https://a.test" },
        { token: TOKEN, tokenOrigin: "not a url" },
      ]
    ) {
      let caught: unknown;
      try {
        secureFetch(options);
      } catch (error) {
        caught = error;
      }
      assert.ok(caught instanceof TransportError);
      assert.equal(caught.code, "transport_config_invalid");
      assertTokenAbsent(caught, "config");
    }
  } finally {
    await slow.close();
    await redirect.close();
  }
});

Deno.test("the caller's signal aborts, before and during the request", async () => {
  // The server answers only when released (by the test after the abort, or after 30 s at the
  // latest): an abort that waited for the server would see it answer first.
  let answered = false;
  const { promise: released, resolve: release } = Promise.withResolvers<void>();
  const fallback = setTimeout(release, 30_000);
  const server = startHttpServer(async () => {
    await released;
    answered = true;
    return new Response("late");
  });
  try {
    const { calls, fetch } = recordingFetch();
    const pre = secureFetch({ dangerouslyAllowLoopback: true, fetch });
    const error = await refusal(pre(`${server.origin}/`, { signal: AbortSignal.abort() }));
    assert.equal(error.code, "transport_aborted");
    assert.equal(calls.length, 0);

    const safeFetch = secureFetch({ dangerouslyAllowLoopback: true });
    const controller = new AbortController();
    const pending = safeFetch(`${server.origin}/`, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    assert.equal((await refusal(pending)).code, "transport_aborted");
    assert.equal(answered, false, "the abort waited for the server");
  } finally {
    clearTimeout(fallback);
    release();
    await server.close();
  }
});

Deno.test("describe() reports the resolver and limits; Deno enforces DNS checks", () => {
  const report = secureFetch({}).describe();
  assert.deepEqual(report, {
    dnsCheck: "enforced",
    dnsPinning: "enforced",
    resolver: "deno",
    loopbackAllowed: false,
    maxResponseBytes: 1024 * 1024,
    timeoutMs: 30_000,
    tokenOrigin: null,
  });
  const injected = secureFetch({
    resolve: () => Promise.resolve([]),
    maxResponseBytes: 10,
    timeoutMs: 5,
    dangerouslyAllowLoopback: true,
  }).describe();
  assert.equal(injected.resolver, "injected");
  assert.equal(injected.loopbackAllowed, true);
  assert.equal(injected.maxResponseBytes, 10);
  for (const options of [{ maxResponseBytes: -1 }, { timeoutMs: 0 }, { timeoutMs: 2 ** 31 }]) {
    assert.throws(() => secureFetch(options), { code: "transport_config_invalid" });
  }
});

Deno.test("without Deno's or Node's resolver (a Workers-like runtime) the report says unavailable", async () => {
  // A subprocess removes the runtime globals before loading the module, standing in for
  // Workers (workerd itself is exercised by the project's smoke step, not here).
  const moduleUrl = new URL("../../src/transport/mod.ts", import.meta.url).href;
  const script = `
    const { describeTransport } = await import(${JSON.stringify(moduleUrl)});
    const withDeno = describeTransport().resolver;
    const saved = globalThis.Deno;
    delete globalThis.Deno;
    delete globalThis.process;
    const report = describeTransport();
    saved.stdout.write(new TextEncoder().encode(JSON.stringify({ withDeno, report })));
  `;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
  const { withDeno, report } = JSON.parse(new TextDecoder().decode(output.stdout));
  assert.equal(withDeno, "deno");
  assert.equal(report.dnsCheck, "unavailable");
  assert.equal(report.resolver, "none");
});

Deno.test("the default Deno resolver fails closed on a name that does not resolve", async () => {
  // `.invalid` never resolves (RFC 6761); no network is needed for the refusal.
  const safeFetch = secureFetch({ timeoutMs: 5_000, fetch: recordingFetch().fetch });
  const error = await refusal(safeFetch("https://sluice-test.invalid/"));
  assert.ok(
    error.code === "transport_dns_failed" || error.code === "transport_timeout",
    error.code,
  );
});

Deno.test("a declared Content-Length over the cap is refused; exactly the cap passes", async () => {
  const server = startHttpServer(() => new Response("x".repeat(5000)));
  try {
    const safeFetch = secureFetch({ dangerouslyAllowLoopback: true, maxResponseBytes: 4999 });
    const error = await refusal(safeFetch(`${server.origin}/`));
    assert.equal(error.code, "transport_response_too_large");
    const exact = secureFetch({ dangerouslyAllowLoopback: true, maxResponseBytes: 5000 });
    assert.equal(await drain(await exact(`${server.origin}/`)), 5000);
  } finally {
    await server.close();
  }
});

Deno.test("the official v2 SDK client runs over secureFetch and surfaces its error codes", async () => {
  const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  const { CfWorkerJsonSchemaValidator } = await import(
    "@modelcontextprotocol/client/validators/cf-worker"
  );
  const { createMcpHandler, fromJsonSchema, McpServer } = await import(
    "@modelcontextprotocol/server"
  );
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "transport-fixture", version: "1.0.0" });
    server.registerTool("echo", {
      description: "Echoes its input. ".repeat(200),
      inputSchema: fromJsonSchema({ type: "object", properties: { text: { type: "string" } } }),
    }, (args: unknown) => ({
      content: [{ type: "text" as const, text: String((args as { text?: unknown }).text) }],
    }));
    return server;
  });
  const server = startHttpServer((request) => handler.fetch(request));
  try {
    const url = new URL(`${server.origin}/mcp`);
    const run = async (maxResponseBytes: number) => {
      const client = new Client({ name: "transport-test", version: "1.0.0" }, {
        jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
        versionNegotiation: { mode: "auto" },
      });
      const transport = new StreamableHTTPClientTransport(url, {
        fetch: secureFetch({ dangerouslyAllowLoopback: true, maxResponseBytes, timeoutMs: 5_000 }),
      });
      try {
        await client.connect(transport);
        const tools = await client.listTools();
        return {
          version: client.getNegotiatedProtocolVersion(),
          names: tools.tools.map((t) => t.name),
        };
      } finally {
        await client.close();
      }
    };
    assert.deepEqual(await run(1024 * 1024), { version: "2026-07-28", names: ["echo"] });
    // The tool list (about 4 KB of description) is over this cap; the SDK passes the code on.
    let caught: unknown;
    try {
      await run(2048);
    } catch (error) {
      caught = error;
    }
    assert.equal(transportErrorCode(caught), "transport_response_too_large");
    assert.ok(server.requests.every((h) => h.get("accept-encoding") === "identity"));
  } finally {
    await server.close();
  }
});

Deno.test("the transport bundles for a browser/Workers platform without runtime imports", async () => {
  // No static or dynamic import of a runtime module: the resolvers use feature detection.
  const code = await bundleForBrowser("src/transport/mod.ts", "sluice-transport-bundle-");
  assert.ok(code.includes("transport_ip_literal_refused"), "the bundle is not the transport");
});
