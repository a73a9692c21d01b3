/**
 * Connection strings of the PostgreSQL store: `postgres://` or `postgresql://`, user, host, port,
 * database and driver parameters (`sslmode`, ...); the password goes in an option, not the URL.
 *
 * @module
 */
import { ApprovalError } from "../errors.ts";

/**
 * Checks a PostgreSQL connection string. Throws `approval_store_url_invalid` for another scheme,
 * a URL that does not parse, or a password inside it (pass `password`).
 *
 * @example
 * ```ts
 * import { checkPostgresUrl } from "@sluice/mcp/postgres";
 * checkPostgresUrl("postgres://sluice@db.internal:5432/approvals?sslmode=require");
 * ```
 *
 * @category Approvals
 */
export function checkPostgresUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new ApprovalError("approval_store_url_invalid", "the store URL does not parse");
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new ApprovalError(
      "approval_store_url_invalid",
      `unsupported store URL scheme ${url.protocol} (use postgres:)`,
    );
  }
  if (url.password !== "") {
    throw new ApprovalError(
      "approval_store_url_invalid",
      "a password does not belong in the store URL; pass password",
    );
  }
  return input;
}
