/**
 * The client program the official MCP conformance runner drives (`client --command ...`): a
 * tools-only host on sluice's `connect()`. The runner starts a scenario server, appends its URL
 * as the last argument and names the scenario in `MCP_CONFORMANCE_SCENARIO`; scenarios that
 * name tool calls put them in `MCP_CONFORMANCE_CONTEXT` (`{"toolCalls": [...]}`).
 *
 * ```
 * deno run -A scripts/conformance_client.ts <server url>
 * ```
 *
 * Like any host, it names the tools it allows in advance (the context's, or the plan below for
 * the scenario), pre-approves them, calls each through the toolkit and prints one JSON line per
 * step (the report, then every envelope) on stdout. It exits 0 when the server was set up and
 * every call to a tool sluice made ready succeeded; a tool sluice refused (in the report's
 * `skipped`) is still called, to show the refusal is local, and does not count as a failure.
 *
 * It is the host of a strict-mode model (OpenAI strict function calling): it exports the tools
 * with `toolkit.toOpenAITools({ strict: true, closeOpenObjects: true })`, where every optional
 * property becomes required and nullable, so the model writes `null` for a property it leaves
 * out; each call passes that export's record as `strictNulls`, which turns those `null`s back
 * into absent properties before validation. The scenarios' context arguments are what such a
 * model sends (`http-custom-headers` calls with `verbose: null` for an optional boolean).
 *
 * @module
 */
import {
  connect,
  ConnectError,
  type Connection,
  type ConnectOptions,
  OAuthClient,
} from "../mod.ts";

/** The model-facing tools of the connection, for arguments that depend on what was listed. */
type ListedTools = Connection["toolkit"]["tools"];

/** One tool call a scenario expects: fixed arguments, or arguments built from the toolkit. */
export interface PlannedCall {
  readonly name: string;
  readonly arguments:
    | Record<string, unknown>
    | ((tools: ListedTools) => Record<string, unknown> | undefined);
}

/**
 * The calls of each tools scenario whose context names none, from the scenario's own
 * description of what a client does.
 */
export const PLANS: Readonly<Record<string, readonly PlannedCall[]>> = {
  // The server lists no tools: connect, list, allow nothing it has.
  initialize: [],
  tools_call: [{ name: "add_numbers", arguments: { a: 2, b: 3 } }],
  "sse-retry": [{ name: "test_reconnection", arguments: {} }],
  "request-metadata": [],
  "http-standard-headers": [
    { name: "test_headers", arguments: {} },
    { name: "my-hyphenated-tool", arguments: {} },
  ],
  "http-invalid-tool-headers": [
    { name: "valid_tool", arguments: { region: "us-west1" } },
    ...[
      "invalid_empty_header",
      "invalid_object_header",
      "invalid_array_header",
      "invalid_null_header",
      "invalid_duplicate_same_case",
      "invalid_duplicate_diff_case",
      "invalid_space_in_name",
      "invalid_colon_in_name",
      "invalid_non_ascii_name",
      "invalid_control_char_name",
    ].map((name) => ({ name, arguments: { value: "x" } })),
  ],
  // Listing only: the server answers no tools/call.
  "json-schema-ref-no-deref": [],
  // The focal tool's input schema as sluice keeps it, sent back through the echo tool; without
  // the focal tool (refused by the profile) there is nothing to echo.
  "json-schema-2020-12-preservation": [{
    name: "json_schema_echo",
    arguments: (tools) => {
      const focal = tools.find((tool) => tool.tool === "json_schema_2020_12_tool");
      return focal === undefined ? undefined : { schema: focal.inputSchema };
    },
  }],
};

/**
 * The tools a scenario's server lists that the host allows without calling them (discovery
 * alone is what the scenario checks).
 */
export const LISTED_ONLY: Readonly<Record<string, readonly string[]>> = {
  "json-schema-ref-no-deref": ["lookup_user"],
  "json-schema-2020-12-preservation": ["json_schema_2020_12_tool"],
};

/**
 * Every `auth/*` scenario: the suite's MCP server, behind the suite's authorization server,
 * lists one tool; the client authorizes (see {@link HostOAuth}), lists and calls it.
 */
export const AUTH_PLAN: readonly PlannedCall[] = [{ name: "test-tool", arguments: {} }];

/**
 * The client ID metadata document URL the suite's `auth/basic-cimd` expects a client to use
 * as its `client_id` (the suite never fetches it; a real host serves its own).
 */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";

/**
 * The redirect URI the host registers. Nothing listens on it: the suite's authorization
 * endpoint approves at once and redirects there, and the "person" below reads that redirect.
 */
const REDIRECT_URI = "http://127.0.0.1:8976/callback";

/**
 * The OAuth side of the host: one `OAuthClient` as an application configures it for the
 * authorization code flow, and the person at the browser. The suite's authorization endpoint
 * answers the authorization URL with a redirect to the redirect URI at once (no login page),
 * so the person is one plain `fetch` that does not follow it; the redirect's `Location` is the
 * callback URL the application hands to `auth.finish()`. The OAuth requests themselves all go
 * through sluice's hardened fetch; only this stand-in for a browser uses the runtime's own.
 */
class HostOAuth {
  readonly client: OAuthClient;
  #callback: string | undefined;
  /** Authorization URLs the person was sent to, in order. */
  readonly visited: URL[] = [];

  constructor(scope?: string) {
    this.client = new OAuthClient({
      redirectUri: REDIRECT_URI,
      redirect: (url) => this.#visit(url),
      clientMetadataUrl: CLIENT_METADATA_URL,
      clientName: "sluice-conformance",
      ...(scope !== undefined ? { scope } : {}),
    });
  }

  async #visit(url: URL): Promise<void> {
    this.visited.push(url);
    const response = await fetch(url, { redirect: "manual" });
    await response.body?.cancel();
    this.#callback = response.headers.get("location") ?? undefined;
  }

  /** The callback the person came back with since the last call, once. */
  takeCallback(): string | undefined {
    const callback = this.#callback;
    this.#callback = undefined;
    return callback;
  }
}

/**
 * Connects; when connect() rejects because the server needs a person's authorization, lets the
 * person authorize, hands the callback to `auth.finish()` and connects again (at most twice:
 * never a loop). Any other rejection, or a third, is the caller's.
 */
async function connectAuthorized(
  url: string,
  options: ConnectOptions,
  oauth: HostOAuth | undefined,
): Promise<Connection> {
  for (let round = 0;; round++) {
    try {
      return await connect(url, options);
    } catch (error) {
      const callback = error instanceof ConnectError &&
          error.code === "auth_authorization_required" && oauth !== undefined && round < 2
        ? oauth.takeCallback()
        : undefined;
      if (callback === undefined) throw error;
      say({ event: "authorized", round });
      await oauth!.client.finish(callback);
    }
  }
}

/** A placeholder allow entry for scenarios whose server lists no tool the host wants. */
const NOTHING = "conformance-no-tool";

function say(line: Record<string, unknown>): void {
  console.log(JSON.stringify(line));
}

function contextCalls(): PlannedCall[] | undefined {
  const raw = Deno.env.get("MCP_CONFORMANCE_CONTEXT");
  if (raw === undefined) return undefined;
  const context = JSON.parse(raw) as { toolCalls?: PlannedCall[] };
  return context.toolCalls;
}

/**
 * Scenarios whose server speaks only 2025-03-26 (the stable suite's `sse-retry` answers
 * `initialize` with it): the host opts in, as `connect()` requires.
 */
const LEGACY_2025_03_26 = new Set(["sse-retry"]);

async function main(): Promise<number> {
  const url = Deno.args.at(-1);
  const scenario = Deno.env.get("MCP_CONFORMANCE_SCENARIO") ?? "";
  if (url === undefined) {
    console.error("usage: conformance_client.ts <server url>");
    return 2;
  }
  const isAuth = scenario.startsWith("auth/");
  const calls = isAuth ? AUTH_PLAN : contextCalls() ?? PLANS[scenario];
  if (calls === undefined) {
    say({ event: "unsupported", scenario });
    return 3;
  }
  const names = [...new Set([...calls.map((call) => call.name), ...(LISTED_ONLY[scenario] ?? [])])];
  const allow = names.length > 0 ? names : [NOTHING];
  const options = (oauth: HostOAuth | undefined): ConnectOptions => ({
    id: "conformance",
    allow,
    preApproved: allow,
    // The suite's servers (MCP and authorization) are plain http on loopback: the test-only
    // transport option, which OAuth requests inherit too; defaults refuse both.
    transport: { dangerouslyAllowLoopback: true },
    ...(oauth !== undefined ? { auth: oauth.client } : {}),
    ...(LEGACY_2025_03_26.has(scenario)
      ? { legacyProtocolVersions: ["2025-11-25", "2025-06-18", "2025-03-26"] }
      : {}),
  });
  let oauth = isAuth ? new HostOAuth() : undefined;
  let connection: Connection;
  try {
    connection = await connectAuthorized(url, options(oauth), oauth);
  } catch (error) {
    if (!(error instanceof ConnectError)) throw error;
    // The server could not be set up: its code and sluice's explanation, then a failed run.
    say({ event: "connect-failed", code: error.code, failures: error.failures });
    return 1;
  }
  try {
    const report = connection.report();
    say({
      event: "report",
      servers: report.servers,
      ready: report.ready.map((tool) => tool.tool),
      skipped: report.skipped,
    });
    let failed = report.servers[0]?.status !== "ready";
    let steppedUp = false;
    const ready = new Map(report.ready.map((tool) => [tool.tool, tool.name]));
    const nullable = connection.toolkit.toOpenAITools({ strict: true, closeOpenObjects: true })
      .report.nullable;
    const skipped = new Map(report.skipped.map((tool) => [tool.tool, tool.name]));
    for (const call of calls) {
      const local = ready.get(call.name) ?? skipped.get(call.name) ?? call.name;
      const args = typeof call.arguments === "function"
        ? call.arguments(connection.toolkit.tools)
        : call.arguments;
      if (args === undefined) {
        say({ event: "not-called", tool: call.name });
        failed = true;
        continue;
      }
      const strictNulls = nullable[local];
      const callOptions = strictNulls === undefined ? {} : { strictNulls };
      let envelope = await connection.toolkit.call(local, args, callOptions);
      if (envelope.errorCode === "auth_insufficient_scope" && oauth !== undefined && !steppedUp) {
        // Step-up, as a host does it: sluice reports the scopes the server asked for and does
        // not retry; the host authorizes again, once, with what it asked for before plus those.
        steppedUp = true;
        const before = oauth.visited.at(-1)?.searchParams.get("scope")?.split(" ") ?? [];
        const scope = [...new Set([...before, ...oauth.client.scopeNeeded(url) ?? []])].join(" ");
        say({ event: "step-up", tool: call.name, scope });
        await connection.close();
        oauth = new HostOAuth(scope);
        connection = await connectAuthorized(url, options(oauth), oauth);
        envelope = await connection.toolkit.call(local, args, callOptions);
      }
      say({ event: "call", tool: call.name, ready: ready.has(call.name), envelope });
      if (ready.has(call.name) && envelope.errorCode !== undefined) failed = true;
    }
    return failed ? 1 : 0;
  } finally {
    await connection.close();
  }
}

Deno.exit(await main());
