// The workerd consumer: bundled by scripts/check_npm.ts from the installed package with the
// esbuild settings docs/install.md gives users, and run in Miniflare with its defaults, without
// nodejs_compat. Its size is the Worker budget (`scripts/support/package_size.ts`): connect(), one
// call and one provider export. A request runs connect() against the loopback fixture (its URL is
// defined into the bundle as __MCP_URL__) and one read call; with `?down=<url>` it connects to a
// server that is down instead. It answers with what it saw as JSON.
import { codeOf, connect } from "@sluice/mcp";

const transport = { dangerouslyAllowLoopback: true };

async function down(url) {
  try {
    const connection = await connect(url, { id: "down", allow: ["read_record"], transport });
    await connection.close();
    return { resolved: connection.toolkit.tools.length };
  } catch (error) {
    return { rejected: codeOf(error) ?? null };
  }
}

export default {
  async fetch(request) {
    const downUrl = new URL(request.url).searchParams.get("down");
    if (downUrl !== null) return Response.json(await down(downUrl));
    // deno-lint-ignore no-undef
    const connection = await connect(__MCP_URL__, {
      id: "records",
      allow: ["read_record"],
      preApproved: ["read_record"],
      transport,
    });
    try {
      const envelope = await connection.toolkit.call("records__read_record", { key: "worker" });
      return Response.json({
        tools: connection.toolkit.toAnthropicTools().length,
        envelope,
        dnsPinning: connection.report().servers[0]?.transport.dnsPinning,
      });
    } finally {
      await connection.close();
    }
  },
};
