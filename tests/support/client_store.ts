/**
 * The store a `libsql:` / `https:` URL opens (the one SQL store on `RemoteConnection`, through
 * `@libsql/client`), pointed at a local `file:` URL: no libSQL server can be installed here, so
 * this runs every line of the remote path except the client's network transport.
 *
 * @module
 */
import { RemoteConnection } from "../../src/approvals/libsql/remote.ts";
import { openSchema } from "../../src/approvals/sql/migrate.ts";
import { SqlApprovalStore } from "../../src/approvals/sql/store.ts";
import { SQLITE_SCHEMA } from "../../src/approvals/sqlite/schema_check.ts";

/** The SQL store on `RemoteConnection`, as `LibsqlApprovalStore.open` builds it for a server. */
export class ClientApprovalStore extends SqlApprovalStore {
  /** Opens `url` (here a `file:` URL) through `@libsql/client`, migrated and checked. */
  static async open(url: string, now: () => number): Promise<ClientApprovalStore> {
    const connection = RemoteConnection.open(url, undefined, 10_000);
    await openSchema(connection, SQLITE_SCHEMA);
    return new ClientApprovalStore({ connection, durable: true, now });
  }
}
