/**
 * Child process for the exit-after-close test: connects to the URL given as the first
 * argument with a 60 s deadline, makes one call, closes, and then exits with 3 if anything
 * still keeps the process alive 10 s later (an unref'd watchdog fires only then).
 *
 * @module
 */
import { connect } from "../../mod.ts";

const connection = await connect(Deno.args[0], {
  id: "docs",
  allow: ["echo"],
  preApproved: ["echo"],
  transport: { dangerouslyAllowLoopback: true, timeoutMs: 60_000 },
});
const envelope = await connection.toolkit.call("docs__echo", { message: "hi" });
await connection.close();
console.log(JSON.stringify({ errorCode: envelope.errorCode ?? null }));
Deno.unrefTimer(setTimeout(() => Deno.exit(3), 10_000));
