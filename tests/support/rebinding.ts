// The rebinding setup for the DNS pinning tests, loopback only. The URL names `localhost`, which
// the system resolver (what a runtime's own fetch uses) answers with 127.0.0.1; the test's
// resolver answers 127.0.0.2, the one address sluice's check sees and approves. Two servers share
// one port: the approved one on 127.0.0.2 and the rebinding target on 127.0.0.1, whose every TCP
// connection is counted before it is relayed to a server that answers `rebound`.
import { startCountingRelay } from "./counting_relay.ts";

/** The two servers and what they saw. */
export interface RebindingPair {
  /** The port both listen on. */
  readonly port: number;
  /** Requests the approved server (127.0.0.2) answered. */
  approvedRequests(): number;
  /** TCP connections the rebinding target (127.0.0.1) accepted. */
  reboundConnections(): number;
  close(): Promise<void>;
}

/** The test's resolver: `localhost` is 127.0.0.2 to sluice's check. */
export const checkedResolver = (hostname: string): Promise<readonly string[]> =>
  Promise.resolve(hostname === "localhost" ? ["127.0.0.2"] : []);

type Handler = (
  request: Request,
  info: Deno.ServeHandlerInfo<Deno.NetAddr>,
) => Response | Promise<Response>;

/**
 * Starts both servers, with TLS when `tls` is given (a certificate for `localhost`). Each answers
 * `{ who }` (the approved one also echoes `host`) unless `approvedHandler` is given.
 */
export function startRebindingPair(
  tls?: { cert: string; key: string },
  approvedHandler?: Handler,
): RebindingPair {
  const options = { onListen() {}, ...(tls ?? {}) };
  let approved = 0;
  const rebound = Deno.serve(
    { ...options, hostname: "127.0.0.1", port: 0 },
    () => Response.json({ who: "rebound" }),
  );
  // The same port on both addresses: take one on 127.0.0.1 first, then bind 127.0.0.2 to it.
  for (let attempt = 0;; attempt++) {
    const relay = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = relay.addr.port;
    let server: Deno.HttpServer<Deno.NetAddr>;
    try {
      server = Deno.serve({ ...options, hostname: "127.0.0.2", port }, (request, info) => {
        approved++;
        return approvedHandler
          ? approvedHandler(request, info)
          : Response.json({ who: "approved", host: new URL(request.url).host });
      });
    } catch (error) {
      relay.close();
      if (attempt < 5) continue;
      throw error;
    }
    const counter = startCountingRelay(rebound.addr.port, relay);
    return {
      port,
      approvedRequests: () => approved,
      reboundConnections: () => counter.connections(),
      async close() {
        await counter.close();
        await server.shutdown();
        await rebound.shutdown();
      },
    };
  }
}
