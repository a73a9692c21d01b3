// The workerd consumer: bundled by scripts/check_npm.ts from the installed package (esbuild,
// neutral platform, workerd/worker/browser conditions) and run in Miniflare without
// nodejs_compat. Each request runs connect() against the loopback fixture (its URL is defined
// into the bundle as __MCP_URL__) and one read call, and answers with the envelope as JSON.
import { connect } from "@sluice/mcp";

export default {
  async fetch() {
    // deno-lint-ignore no-undef
    const connection = await connect(__MCP_URL__, {
      id: "records",
      allow: ["read_record"],
      preApproved: ["read_record"],
      transport: { dangerouslyAllowLoopback: true },
    });
    try {
      const envelope = await connection.toolkit.call("records__read_record", { key: "worker" });
      return Response.json({ tools: connection.toolkit.toAnthropicTools().length, envelope });
    } finally {
      await connection.close();
    }
  },
};
