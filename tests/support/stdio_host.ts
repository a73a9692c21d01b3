/**
 * A minimal host for the stdio tests that need a process of their own:
 * `deno run <flags> stdio_host.ts exit|spawn`. `exit` connects to the hostile stdio server that
 * never exits, prints `SERVER_PID <pid>` and ends with `Deno.exit(0)` without closing; `spawn`
 * tries to connect and prints `CODE <code>` (run without `--allow-run`).
 */
import { connect, ConnectError } from "../../mod.ts";
import { fixtureCommand } from "./stdio_servers.ts";

const options = { id: "hostile", allow: ["poke"], preApproved: ["poke"] };
const server = fixtureCommand("hostile_stdio.ts", ["never-exits"], { inheritEnv: [] });
if (Deno.args[0] === "spawn") {
  const code = await connect(server, options).then(
    () => "connected",
    (error: unknown) => error instanceof ConnectError ? error.code : String(error),
  );
  console.log(`CODE ${code}`);
} else {
  const connection = await connect(server, options);
  console.log(`SERVER_PID ${connection.report().servers[0].stdio!.pid}`);
  Deno.exit(0);
}
