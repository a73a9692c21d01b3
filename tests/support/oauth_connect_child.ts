/**
 * A later process of the OAuth tests: opens the token database `sluice login` wrote (key from
 * `SLUICE_TOKEN_KEY`), configures its own `OAuthClient` with a redirect URI on another port,
 * connects to the protected server and calls `echo` once. Prints one JSON line: whether a person
 * was asked for (`redirected`), and the envelope or the code connect() rejected with.
 *
 * `deno run -A tests/support/oauth_connect_child.ts <mcp url> <db> <redirect port>`
 */
import { connect, ConnectError, OAuthClient } from "../../mod.ts";
import { LibsqlTokenStore } from "../../libsql.ts";

const [url, db, port] = Deno.args;
const key = Uint8Array.from(atob(Deno.env.get("SLUICE_TOKEN_KEY")!), (c) => c.charCodeAt(0));
const store = await LibsqlTokenStore.open(db, { key });
let redirected = false;
const auth = new OAuthClient({
  store,
  redirectUri: `http://127.0.0.1:${port}/callback`,
  redirect: () => {
    redirected = true;
  },
});
let result: Record<string, unknown>;
try {
  const connection = await connect(url, {
    id: "docs",
    auth,
    allow: ["echo"],
    preApproved: ["echo"],
    transport: { dangerouslyAllowLoopback: true, timeoutMs: 15_000 },
  });
  try {
    result = { envelope: await connection.toolkit.call("docs__echo", { message: "later" }) };
  } finally {
    await connection.close();
  }
} catch (error) {
  if (!(error instanceof ConnectError)) throw error;
  result = { code: error.code };
} finally {
  store.close();
}
console.log(JSON.stringify({ redirected, ...result }));
