// Where no process can be started (the npm package under `workerd`, `worker`, `browser` and the
// default condition), a stdio server's session is the stand-in of `stdio_open_workerd.ts`: it
// refuses with `stdio_unsupported_runtime` and starts nothing. The sources on Deno get the real
// session from `stdio_open.ts`.
import assert from "node:assert/strict";
import { openStdioSession as workerdSession } from "../../src/session/stdio_open_workerd.ts";
import { openStdioSession } from "../../src/session/stdio_open.ts";
import { SessionRequestError } from "../../src/session/session.ts";
import { CatalogMonitor } from "../../src/catalog/monitor.ts";
import { failureHint } from "../../src/connect/failure.ts";
import { stdioUrl } from "../../src/connect/stdio_config.ts";

const options = () => ({
  spec: { command: "/bin/true", args: [], env: {} },
  inheritEnv: [],
  bounds: { maxFrameBytes: 1024, maxMessageBytes: 1024, maxStderrBytes: 0, closeTimeoutMs: 0 },
  timeoutMs: 1_000,
  observer: new CatalogMonitor({ protocolVersions: ["2025-11-25"] }),
});

Deno.test("stdio on Workers: the stand-in refuses with stdio_unsupported_runtime and starts nothing", async () => {
  const session = workerdSession(options());
  for (const attempt of [session.ready(), session.request("tools/list", {}, { timeoutMs: 1 })]) {
    const error = await attempt.then(() => undefined, (error: unknown) => error);
    assert.ok(error instanceof SessionRequestError);
    assert.equal(error.code, "stdio_unsupported_runtime");
    assert.equal(error.sent, false);
  }
  assert.equal(session.diagnostics, undefined);
  await session.close();
  assert.equal(session.closed, true);
  assert.match(
    failureHint("stdio_unsupported_runtime", stdioUrl("fs"))!,
    /cannot start processes .*Streamable HTTP/,
  );
});

Deno.test("stdio on Deno: the sources open the real session", () => {
  const session = openStdioSession(options());
  assert.equal(session.constructor.name, "StdioSession");
});
