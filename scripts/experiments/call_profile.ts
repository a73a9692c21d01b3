/**
 * A loop of calls to profile with `--cpu-prof`: `deno run -A --cpu-prof --cpu-prof-dir=<dir>
 * scripts/experiments/call_profile.ts <path> [calls] [tool]`, where `path` is `toolkit` (a
 * `connect()` with the tool pre-approved), `registration` (a registration on connect()'s own
 * `ServerSession`: the toolkit without the gate), `secure` (the raw v2 client over
 * `secureFetch`) or `raw` (the raw v2 client over the global fetch), against the `connect` benchmark's server (its
 * own process). Sum the profile's self time by function and file with
 * `deno run -A scripts/experiments/profile_summary.ts <dir>/<file>.cpuprofile`.
 *
 * @module
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { connect, discoverTools, secureFetch } from "../../mod.ts";
import { ServerSession } from "../../src/connect/session.ts";
import { startConnectServer } from "../bench/connect_server.ts";

const [path = "toolkit", callsText = "5000", tool = "small"] = Deno.args;
const calls = Number(callsText);
const server = await startConnectServer();
const url = `${server.origin}/calls`;
const args = { query: "sluice" };
try {
  if (path === "toolkit") {
    const connection = await connect(url, {
      id: "bench",
      allow: [tool],
      preApproved: [tool],
      transport: { dangerouslyAllowLoopback: true },
    });
    const name = `bench__${tool}`;
    for (let i = 0; i < calls; i++) {
      const envelope = await connection.toolkit.call(name, args);
      if (envelope.errorCode !== undefined) throw new Error(envelope.errorCode);
    }
    await connection.close();
  } else if (path === "registration") {
    const session = new ServerSession({
      url: new URL(url),
      fetch: secureFetch({ dangerouslyAllowLoopback: true }),
      timeoutMs: 30_000,
    });
    const binding = {
      localName: tool,
      policy: { mode: "read", title: tool },
      scope: null,
      concurrencySafe: true,
    } as const;
    await session.ready();
    const found = await discoverTools(session, "b", { [tool]: binding }, {
      monitor: session.monitor,
    });
    for (let i = 0; i < calls; i++) {
      const envelope = await found.registrations[0].call(args);
      if (envelope.errorCode !== undefined) throw new Error(envelope.errorCode);
    }
    await session.close();
  } else {
    const client = new Client({ name: "profile", version: "0.0.0" }, {
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
      versionNegotiation: { mode: "auto" },
    });
    const fetch = path === "secure" ? secureFetch({ dangerouslyAllowLoopback: true }) : undefined;
    await client.connect(new StreamableHTTPClientTransport(new URL(url), fetch ? { fetch } : {}));
    await client.listTools();
    for (let i = 0; i < calls; i++) await client.callTool({ name: tool, arguments: args });
    await client.close();
  }
} finally {
  await server.close();
}
