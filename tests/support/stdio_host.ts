/**
 * A minimal host for the exit test: connects to the hostile stdio server that never exits,
 * prints the server's pid, then ends its own process with `Deno.exit(0)` without closing.
 */
import { connect } from "../../mod.ts";
import { fixtureCommand } from "./stdio_servers.ts";

const connection = await connect(fixtureCommand("hostile_stdio.ts", ["never-exits"]), {
  id: "hostile",
  allow: ["poke"],
  preApproved: ["poke"],
});
console.log(`SERVER_PID ${connection.report().servers[0].stdio!.pid}`);
Deno.exit(0);
