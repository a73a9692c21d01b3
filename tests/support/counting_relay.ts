// A TCP relay on 127.0.0.1 that counts the connections it accepts and pipes each one to a
// target port on 127.0.0.1: how tests see how many connections a client opened.

/** A running relay. */
export interface CountingRelay {
  /** The port it listens on. */
  readonly port: number;
  /** Connections accepted so far. */
  connections(): number;
  /** Stops listening and closes every relayed connection. */
  close(): Promise<void>;
}

/** Starts a relay to `targetPort`, on `listener` when given (already bound), else on a new port. */
export function startCountingRelay(targetPort: number, listener?: Deno.Listener): CountingRelay {
  const relay = listener ?? Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let connections = 0;
  const conns = new Set<Deno.Conn>();
  const relays: Promise<unknown>[] = [];
  const loop = (async () => {
    try {
      for await (const conn of relay) {
        connections++;
        conns.add(conn);
        relays.push((async () => {
          try {
            const target = await Deno.connect({ hostname: "127.0.0.1", port: targetPort });
            conns.add(target);
            await Promise.race([
              conn.readable.pipeTo(target.writable),
              target.readable.pipeTo(conn.writable),
            ]);
          } catch {
            // A closed side ends the relay.
          }
        })());
      }
    } catch {
      // The listener was closed.
    }
  })();
  return {
    port: (relay.addr as Deno.NetAddr).port,
    connections: () => connections,
    async close() {
      relay.close();
      for (const conn of conns) {
        try {
          conn.close();
        } catch {
          // Already closed by its pipe.
        }
      }
      await loop;
      await Promise.allSettled(relays);
    },
  };
}
