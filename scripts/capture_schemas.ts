/**
 * Captures the `tools/list` result of real MCP servers from npm into
 * `fixtures/schemas/<server>@<version>.json` as `{ server, version, protocolVersion, tools }`,
 * the tools exactly as the client received them. Tests read these files; they never start the
 * servers.
 *
 * Installs the servers with npm into `.cache/servers/` (gitignored), starts each over stdio with
 * a temporary directory for its state, connects with the official v2 client (cfworker validator,
 * no code generation) and pages through `tools/list` (at most 50 pages).
 *
 * Run: `deno run -A scripts/capture_schemas.ts`
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";

const root = new URL("..", import.meta.url).pathname;
const serversDir = `${root}.cache/servers`;
const outDir = `${root}fixtures/schemas`;

/** Exact versions captured; bump deliberately and recapture. */
const PACKAGES: Record<string, string> = {
  "@modelcontextprotocol/server-everything": "2026.8.31",
  "@modelcontextprotocol/server-filesystem": "2026.8.31",
  "@modelcontextprotocol/server-memory": "2026.8.31",
  // A large real list: 188 tools (1 MiB) by default, 344 (2 MiB) in organization mode.
  "@softeria/ms-365-mcp-server": "0.155.0",
  fastmcp: "4.20.16",
  zod: "4.6.7",
};

interface Target {
  server: string;
  version: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
}

async function run(command: string, args: string[], cwd: string): Promise<void> {
  const { code } = await new Deno.Command(command, {
    args,
    cwd,
    stdout: "inherit",
    stderr: "inherit",
  })
    .output();
  if (code !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${code}`);
}

async function installServers(): Promise<void> {
  await Deno.mkdir(serversDir, { recursive: true });
  await Deno.writeTextFile(`${serversDir}/package.json`, '{ "private": true }\n');
  const specs = Object.entries(PACKAGES).map(([name, version]) => `${name}@${version}`);
  await run("npm", ["install", "--no-audit", "--no-fund", "--save-exact", ...specs], serversDir);
  // The fixture must resolve `fastmcp` and `zod` from the installed tree.
  await Deno.copyFile(`${root}fixtures/fastmcp_server.mjs`, `${serversDir}/fastmcp_server.mjs`);
}

async function installedVersion(name: string): Promise<string> {
  const text = await Deno.readTextFile(`${serversDir}/node_modules/${name}/package.json`);
  return (JSON.parse(text) as { version: string }).version;
}

async function capture(target: Target): Promise<void> {
  const transport = new StdioClientTransport({
    command: target.command,
    args: target.args,
    env: { PATH: Deno.env.get("PATH") ?? "", ...target.env },
    stderr: "ignore",
  });
  const client = new Client(
    { name: "sluice-capture", version: "0.1.0" },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  await client.connect(transport);
  try {
    const tools: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const result = await client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    const record = {
      server: target.server,
      version: target.version,
      protocolVersion: client.getNegotiatedProtocolVersion(),
      tools,
    };
    const file = `${outDir}/${target.server}@${target.version}.json`;
    // A large list (over 256 KiB) is written compact: the repository holds it, not a reader.
    const text = JSON.stringify(record);
    await Deno.writeTextFile(
      file,
      (text.length > 256 * 1024 ? text : JSON.stringify(record, null, 2)) + "\n",
    );
    console.log(`${file}: ${tools.length} tools`);
  } finally {
    await client.close();
  }
}

if (import.meta.main) {
  await installServers();
  await Deno.mkdir(outDir, { recursive: true });
  const temp = await Deno.makeTempDir({ prefix: "sluice-capture-" });
  try {
    const bin = (name: string) => `${serversDir}/node_modules/${name}/dist/index.js`;
    const targets: Target[] = [
      {
        server: "server-everything",
        version: await installedVersion("@modelcontextprotocol/server-everything"),
        command: "node",
        args: [bin("@modelcontextprotocol/server-everything"), "stdio"],
      },
      {
        server: "server-filesystem",
        version: await installedVersion("@modelcontextprotocol/server-filesystem"),
        command: "node",
        args: [bin("@modelcontextprotocol/server-filesystem"), temp],
      },
      {
        server: "server-memory",
        version: await installedVersion("@modelcontextprotocol/server-memory"),
        command: "node",
        args: [bin("@modelcontextprotocol/server-memory")],
        env: { MEMORY_FILE_PATH: `${temp}/memory.jsonl` },
      },
      {
        server: "ms-365-mcp-server",
        version: await installedVersion("@softeria/ms-365-mcp-server"),
        command: "node",
        args: [bin("@softeria/ms-365-mcp-server")],
        env: { HOME: temp },
      },
      {
        server: "ms-365-mcp-server-org-mode",
        version: await installedVersion("@softeria/ms-365-mcp-server"),
        command: "node",
        args: [bin("@softeria/ms-365-mcp-server"), "--org-mode"],
        env: { HOME: temp },
      },
      {
        server: "fastmcp",
        version: await installedVersion("fastmcp"),
        command: "node",
        args: [`${serversDir}/fastmcp_server.mjs`],
      },
    ];
    for (const target of targets) await capture(target);
  } finally {
    await Deno.remove(temp, { recursive: true });
  }
}
