// Runs one request through secureFetch on the runtime executing this file (Bun, Node, Deno), for
// the DNS pinning test: `<runtime> pinning_child.ts <url> <ca.pem> pinned|unpinned`. The check's
// resolver answers 127.0.0.2 for localhost; the runtime's own resolver answers 127.0.0.1. Prints
// one JSON line: the transport report and the server's answer (or the error code).
import { readFileSync } from "node:fs";
import { secureFetch, type TransportReport } from "../../src/transport/mod.ts";
import { checkedResolver } from "./rebinding.ts";

const [url, caPath, mode] = process.argv.slice(2);
const ca = readFileSync(caPath, "utf8");
const trusting = (input: RequestInfo | URL, init?: RequestInit) =>
  fetch(input, { ...init, tls: { ca: [ca] } } as RequestInit);
const safeFetch = secureFetch({
  dangerouslyAllowLoopback: true,
  resolve: checkedResolver,
  timeoutMs: 10_000,
  ...(mode === "pinned" ? { caCerts: [ca] } : { fetch: trusting }),
});
let answer: unknown;
try {
  const response = await safeFetch(url);
  answer = await response.json();
} catch (error) {
  answer = { error: (error as { code?: string }).code ?? String(error) };
}
const report: TransportReport = safeFetch.describe();
console.log(JSON.stringify({ report, answer }));
