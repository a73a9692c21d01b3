/**
 * The gate suites' setup: the in-memory write server (`fixtures/write_server_memory.ts`), a
 * real in-memory approval store, and its write and read catalogs (`save_record`,
 * `load_record`), closed after the body.
 *
 * @module
 */
import {
  discoverTools,
  discoverWriteTools,
  MemoryApprovalStore,
  type ToolLimits,
} from "../../mod.ts";
import {
  type MemoryWriteMode,
  type MemoryWriteServer,
  startMemoryWriteServer,
} from "../../fixtures/write_server_memory.ts";
import { readBinding, writeBinding } from "../../fixtures/write_bindings.ts";

/** The server, the store and both catalogs. */
export interface WriteCatalogs {
  server: MemoryWriteServer;
  store: MemoryApprovalStore;
  writes: Awaited<ReturnType<typeof discoverWriteTools>>;
  reads: Awaited<ReturnType<typeof discoverTools>>;
}

/**
 * Runs `body` with a fresh server, store and catalogs, and closes them after it.
 *
 * @param body the test
 * @param options how the server answers writes, and lowered limits
 */
export async function withWriteCatalogs(
  body: (setup: WriteCatalogs) => Promise<void>,
  options: { mode?: MemoryWriteMode; limits?: Partial<ToolLimits> } = {},
): Promise<void> {
  const server = await startMemoryWriteServer(options.mode);
  const store = new MemoryApprovalStore();
  try {
    const discoverOptions = {
      monitor: server.monitor,
      ...(options.limits ? { limits: options.limits } : {}),
    };
    const writes = await discoverWriteTools(server.client, "records", {
      write_record: writeBinding(),
    }, discoverOptions);
    const reads = await discoverTools(server.client, "records", {
      read_record: readBinding(),
    }, discoverOptions);
    await body({ server, store, writes, reads });
  } finally {
    await store.close();
    await server.close();
  }
}
