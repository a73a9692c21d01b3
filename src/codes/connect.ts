/**
 * The `connect` stage of the code catalog (connect(): its configuration and the toolkit);
 * `src/codes.ts` assembles the stages.
 *
 * @module
 */
import type { StageCodes } from "./entry.ts";

/**
 * The `connect` stage's codes, each with its meaning: the part of {@link CODES} this stage writes.
 *
 * @category Errors
 */
export const CONNECT_CODES = {
  connect_allow_invalid: {
    stage: "connect",
    in: ["ConnectConfigErrorCode"],
    meaning:
      'An allowlist entry is not an exact `"server.tool"` (a wildcard, an unknown server, ...).',
  },
  connect_revision_invalid: {
    stage: "connect",
    in: ["ConnectConfigErrorCode"],
    meaning:
      "`accept()` got a revision this connection did not stage (or already accepted), or a tool the revision does not add, change or remove.",
  },
  connect_config_invalid: {
    stage: "connect",
    in: ["ConnectConfigErrorCode"],
    meaning:
      "The configuration is not the documented shape (missing field, wrong type, unknown key).",
  },
  connect_name_collision: {
    stage: "connect",
    in: ["ConnectConfigErrorCode"],
    meaning: "Two allowed tools map to the same provider-safe local name.",
  },
  connect_not_allowed: {
    stage: "connect",
    in: ["ConnectConfigErrorCode"],
    meaning: "A `preApproved` or `specs` entry names a tool that is not in the allowlist.",
  },
  mcp_server_unavailable: {
    stage: "connect",
    in: ["ToolkitErrorCode"],
    meaning:
      "A toolkit call to an allowed tool whose server could not be set up; nothing was sent, the server's code is in `cause`.",
  },
  provider_schema_unsupported: {
    stage: "connect",
    in: ["ProviderRefusalCode"],
    meaning:
      "A provider export left a tool out: its schema uses a keyword (or value) the provider rejects or cannot keep.",
  },
  provider_name_unsupported: {
    stage: "connect",
    in: ["ProviderRefusalCode"],
    meaning: "A provider export left a tool out: its name breaks the provider's name rule.",
  },
} as const satisfies StageCodes<"connect">;
