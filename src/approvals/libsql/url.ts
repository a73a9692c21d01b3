/**
 * Store URLs of the libSQL store: a path or `file:` URL (embedded), `:memory:` (tests), or a
 * libSQL server.
 *
 * @module
 */
import { ApprovalError } from "../errors.ts";

/**
 * Where a store lives: an embedded file, process memory, or a libSQL server.
 *
 * @category Approvals
 */
export interface StoreLocation {
  /** `file` (embedded, WAL, synchronous=FULL), `memory` (tests; not durable) or `remote`. */
  readonly kind: "file" | "memory" | "remote";
  /** The URL handed to `@libsql/client`. */
  readonly url: string;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * Resolves a store URL. A plain path becomes a `file:` URL; `:memory:` is an in-memory database;
 * `libsql:`, `https:` and `wss:` name a libSQL server (`http:`/`ws:` only on loopback). Anything
 * else, and credentials inside a URL, throw `approval_store_url_invalid` (pass `authToken`).
 *
 * @example
 * ```ts
 * import { resolveStoreUrl } from "@sluice/mcp/libsql";
 * console.assert(resolveStoreUrl("/var/lib/sluice/approvals.db").url === "file:/var/lib/sluice/approvals.db");
 * ```
 *
 * @category Approvals
 */
export function resolveStoreUrl(input: string): StoreLocation {
  if (typeof input !== "string" || input.length === 0) {
    throw new ApprovalError("approval_store_url_invalid", "the store URL is empty");
  }
  if (input === ":memory:" || input === "file::memory:") return { kind: "memory", url: ":memory:" };
  if (input.startsWith("file:")) {
    if (input.length === "file:".length) {
      throw new ApprovalError("approval_store_url_invalid", "the file URL has no path");
    }
    return { kind: "file", url: input };
  }
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(input);
  // A Windows drive letter ("C:\\…") is a path, not a scheme.
  if (scheme && !/^[a-zA-Z]:[\\/]/.test(input)) {
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      throw new ApprovalError("approval_store_url_invalid", "the store URL does not parse");
    }
    if (url.username !== "" || url.password !== "") {
      throw new ApprovalError(
        "approval_store_url_invalid",
        "credentials do not belong in the store URL; pass authToken",
      );
    }
    const protocol = url.protocol;
    if (protocol === "libsql:" || protocol === "https:" || protocol === "wss:") {
      return { kind: "remote", url: input };
    }
    if ((protocol === "http:" || protocol === "ws:") && LOOPBACK_HOSTS.has(url.hostname)) {
      return { kind: "remote", url: input };
    }
    throw new ApprovalError(
      "approval_store_url_invalid",
      `unsupported store URL scheme ${protocol} (use a path, file:, libsql: or https:)`,
    );
  }
  // `?` and `#` would be read as a query or fragment of the file URL.
  if (/[?#]/.test(input)) {
    throw new ApprovalError(
      "approval_store_url_invalid",
      "a plain path with ? or # is ambiguous; pass a file: URL",
    );
  }
  return { kind: "file", url: `file:${input}` };
}
