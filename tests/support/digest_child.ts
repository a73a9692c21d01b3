/**
 * Child process for the cross-process digest test: discovers the suite's call tools from a
 * fresh session of the kind given as the first argument and prints the snapshot's
 * `revisionDigest` and the digest of its entries as one JSON line.
 *
 * @module
 */
import { digest } from "../../mod.ts";
import { callBindings, discover } from "./read_host.ts";
import { openSession, type SessionKind } from "./sessions.ts";

const kind = (Deno.args[0] ?? "memory-v2") as SessionKind;
const session = await openSession(kind);
try {
  const { snapshot, monitor } = await discover(session, callBindings());
  monitor.close();
  console.log(JSON.stringify({
    revisionDigest: snapshot.revisionDigest,
    entriesDigest: await digest(snapshot.entries),
  }));
} finally {
  await session.close();
}
