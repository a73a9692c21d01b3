/**
 * The `serve` stage of the code catalog (`sluice serve`, the governed MCP server); `src/codes.ts`
 * assembles the stages.
 *
 * @module
 */
import type { StageCodes } from "./entry.ts";

/**
 * The `serve` stage's codes, each with its meaning: the part of {@link CODES} this stage writes.
 *
 * @category Errors
 */
export const SERVE_CODES = {
  serve_config_invalid: {
    stage: "serve",
    meaning:
      "A `sluice serve` configuration is malformed: no clients, a short or repeated token, a bad client name or limit, an allowlist entry naming no served tool.",
  },
  serve_unauthorized: {
    stage: "serve",
    meaning:
      "A request to `sluice serve` had no bearer token, or one no configured client holds (HTTP 401).",
  },
  serve_origin_refused: {
    stage: "serve",
    meaning: "A request to `sluice serve` came with an `Origin` it does not allow (HTTP 403).",
  },
  serve_body_too_large: {
    stage: "serve",
    meaning: "A request body to `sluice serve` is over `maxBodyBytes` (HTTP 413).",
  },
  serve_client_busy: {
    stage: "serve",
    meaning:
      "A client already has `maxConcurrentCalls` tool calls in flight; this one was not run.",
  },
  serve_forbidden: {
    stage: "serve",
    meaning:
      "A valid OAuth access token to `sluice serve` whose client is not configured, or that lacks a required scope (HTTP 403).",
  },
  serve_oauth_unavailable: {
    stage: "serve",
    meaning:
      "`sluice serve` could not read its OAuth issuer's metadata (its issuer and `jwks_uri`) when it was built.",
  },
  serve_rate_limited: {
    stage: "serve",
    meaning:
      "A client of `sluice serve` is over its `requestsPerMinute`; the request was not read (HTTP 429, `Retry-After`).",
  },
  serve_task_cancelled: {
    stage: "serve",
    meaning:
      "A served call's task was cancelled or expired before the call had an outcome; its approval stays in the store.",
  },
  serve_shutting_down: {
    stage: "serve",
    meaning: "`sluice serve` is shutting down and takes no new requests (HTTP 503).",
  },
} as const satisfies StageCodes<"serve">;
