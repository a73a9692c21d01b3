/**
 * Every code sluice returns in an envelope or throws, grouped by pipeline stage, each with a
 * one-line meaning: the one place a code is written. Every code union of the modules is derived
 * from this catalog ({@link CodeOf} by stage, {@link CodeIn} for a union that is not a whole
 * stage), and the error reference (`docs/errors.md`) is tested against it
 * (`tests/codes_test.ts`).
 *
 * @module
 */
import { SluiceError } from "./errors.ts";

/**
 * The pipeline stage a code belongs to, in the order a call meets them.
 *
 * @category Errors
 */
export type CodeStage =
  | "install"
  | "identity"
  | "schema"
  | "screen"
  | "transport"
  | "auth"
  | "session"
  | "discovery"
  | "call"
  | "gate"
  | "approvals"
  | "connect"
  | "inbox"
  | "cli";

/**
 * The code unions that are not a whole stage, by the name of the type that lists them. A code
 * names in its `in` every such union it belongs to; a union may also take in other unions
 * (`ToolkitErrorCode` is `GateErrorCode` plus its own).
 *
 * @category Errors
 */
export type CodeGroup =
  | "SchemaProblemCode"
  | "ValidationErrorCode"
  | "LockErrorCode"
  | "DeadlineStop"
  | "GateErrorCodeThrown"
  | "ToolMapProblem"
  | "ClaimRefusalCode"
  | "GrantRefusalCode"
  | "GrantApprovalResult"
  | "ApprovalErrorCode"
  | "ConnectConfigErrorCode"
  | "ProviderRefusalCode"
  | "ToolkitErrorCode";

/**
 * What the catalog says of one code.
 *
 * @category Errors
 */
export interface CodeEntry {
  /** The stage the code belongs to. */
  readonly stage: CodeStage;
  /** The unions beyond its stage that hold it. */
  readonly in?: readonly CodeGroup[];
  /** What it means, in one line. */
  readonly meaning: string;
}

/**
 * Every code, with its stage, the unions beyond its stage that hold it, and what it means.
 * Read-only: the code unions of every module are derived from it.
 *
 * @example
 * ```ts
 * import { CODES } from "@sluice/mcp";
 * console.log(CODES.json_cycle.meaning); // "A value contains itself."
 * ```
 *
 * @category Errors
 */
// A plain literal: a bundle that never reads the catalog (a Worker's) drops it, 17 KB minified.
export const CODES = {
  dependency_missing: {
    stage: "install",
    meaning: "An entry point needs an optional npm package that is not installed.",
  },
  json_bigint: { stage: "identity", meaning: "A value is a bigint." },
  json_cycle: { stage: "identity", meaning: "A value contains itself." },
  json_function: { stage: "identity", meaning: "A value is a function." },
  json_lone_surrogate: { stage: "identity", meaning: "A string holds a lone UTF-16 surrogate." },
  json_non_finite_number: { stage: "identity", meaning: "A number is NaN or infinite." },
  json_non_plain_object: {
    stage: "identity",
    meaning: "An object is not a plain object or array (a Date, a Map, a class instance).",
  },
  json_symbol: { stage: "identity", meaning: "A value is a symbol." },
  json_too_deep: { stage: "identity", meaning: "The value nests deeper than `maxDepth`." },
  json_too_large: { stage: "identity", meaning: "The canonical text is over `maxBytes`." },
  json_too_many_nodes: {
    stage: "identity",
    meaning: "The value has more nodes than `maxNodes`.",
  },
  json_undefined: {
    stage: "identity",
    meaning: "A value is `undefined` where JSON needs a value.",
  },
  schema_dialect_unsupported: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning: "A root `$schema` naming a dialect whose semantics differ, or any nested `$schema`.",
  },
  schema_enum_too_long: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning: "An `enum` with more members than `maxEnumLength`.",
  },
  schema_keyword_invalid: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning: "A keyword's value has the wrong JSON type or shape.",
  },
  schema_keyword_unsupported: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning: "A keyword outside the profile, `x-*` extensions included.",
  },
  schema_not_object: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning: "The schema (or a subschema) is not a JSON object or boolean where one is required.",
  },
  schema_pattern_too_long: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning: "A `pattern` longer than `maxPatternLength`.",
  },
  schema_pattern_invalid: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning: "A `pattern` (or `patternProperties` name) that is not ECMA-262 with the `u` flag.",
  },
  schema_pattern_unsupported: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning:
      "A valid pattern the linear-time engine (RE2) cannot run: backreferences, lookaround, modifier groups.",
  },
  schema_pattern_too_complex: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning: "A pattern whose RE2 program is over 256 instructions (large counted repetitions).",
  },
  schema_mcp_header_invalid: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning:
      "An `x-mcp-header` declaration that breaks 2026-07-28's rules: that tool only is refused.",
  },
  schema_ref_unsupported: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning:
      "`$ref` that is not a local reference into the root's definitions, or one that cannot resolve.",
  },
  schema_too_deep: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning: "The schema's JSON nests deeper than `maxDepth`.",
  },
  schema_too_large: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning: "The serialized schema is over `maxBytes`.",
  },
  schema_too_many_nodes: {
    stage: "schema",
    in: ["SchemaProblemCode"],
    meaning: "More JSON nodes than `maxNodes`.",
  },
  schema_unsupported: {
    stage: "schema",
    meaning: "`compileSchema` refused a schema; its `problems` say why.",
  },
  value_invalid: {
    stage: "schema",
    in: ["ValidationErrorCode"],
    meaning: "The value breaks a schema keyword.",
  },
  value_over_budget: {
    stage: "schema",
    in: ["ValidationErrorCode"],
    meaning: "The value is not plain JSON or is over its depth, node or byte budget.",
  },
  screen_hidden_tag_characters: {
    stage: "screen",
    meaning:
      "A string holds Unicode Tag characters (U+E0000-E007F) outside a well-formed emoji tag sequence: text a person cannot see and a model reads; the finding decodes it.",
  },
  screen_hidden_bidi_control: {
    stage: "screen",
    meaning:
      "A string holds a bidirectional control (U+202A-202E, U+2066-2069, U+200E, U+200F, U+061C) that reorders what a person sees.",
  },
  screen_hidden_invisible_character: {
    stage: "screen",
    meaning:
      "A string holds a control or format character that renders invisibly (zero-width, soft hyphen, a run of variation selectors, a C0 or C1 control).",
  },
  screen_hidden_terminal_escape: {
    stage: "screen",
    meaning:
      "A string holds an ANSI or terminal escape (ESC, or the C1 CSI, OSC, DCS, APC, PM, SOS).",
  },
  screen_hidden_homoglyph_name: {
    stage: "screen",
    meaning:
      "The tool's name differs from another allowed tool's name but looks the same (the same confusable skeleton).",
  },
  screen_hidden_confusable_name: {
    stage: "screen",
    meaning:
      "The tool's name holds a non-ASCII character that looks like an ASCII one (another script's lookalike, a fullwidth or mathematical form).",
  },
  screen_markup_instruction_tag: {
    stage: "screen",
    meaning:
      "A string holds an instruction tag aimed at the model (`<important>`, `<system>`, `<instructions>`, `[INST]`, `<|im_start|>`, ...).",
  },
  screen_markup_override_phrase: {
    stage: "screen",
    meaning:
      "A string tells the model to ignore, forget or override its previous or other instructions.",
  },
  screen_markup_concealment: {
    stage: "screen",
    meaning:
      "A string tells the model to hide something from the user (do not tell, mention or show the user; silently; keep it secret).",
  },
  screen_markup_urgency: {
    stage: "screen",
    meaning:
      "A string claims authority or urgency over the model (new instructions, a system or admin override, an urgent notice for the AI, a threat of a crash, no confirmation).",
  },
  screen_shadowing_tool_name: {
    stage: "screen",
    meaning: "A string names a tool of another server the host allows.",
  },
  screen_shadowing_server_name: {
    stage: "screen",
    meaning: "A string names another server the host connects to.",
  },
  screen_shadowing_instruction: {
    stage: "screen",
    meaning:
      "A string tells the model how to use other tools (when this tool is present, before or instead of any other tool, redirect or copy what they send).",
  },
  screen_exfiltration_parameter: {
    stage: "screen",
    meaning:
      "A parameter's name asks for the conversation, the model's context or instructions, or credentials, unrelated to the tool's name.",
  },
  screen_exfiltration_request: {
    stage: "screen",
    meaning:
      "A string asks the model to pass the conversation, its instructions, credentials or file contents as an argument, unrelated to the tool's name.",
  },
  screen_exfiltration_sensitive_path: {
    stage: "screen",
    meaning:
      "A string names a sensitive path or secret file (`~/.ssh`, `id_rsa`, `.env`, `.aws/credentials`, an MCP client's config, ...).",
  },
  transport_aborted: {
    stage: "transport",
    meaning: "The caller's `AbortSignal` aborted the request.",
  },
  transport_address_refused: {
    stage: "transport",
    meaning: "The name resolved to at least one address that is not public.",
  },
  transport_config_invalid: {
    stage: "transport",
    meaning:
      "The options given to `secureFetch` are inconsistent (for example a token without origin).",
  },
  transport_dns_failed: {
    stage: "transport",
    meaning: "The name could not be resolved, or resolved to nothing.",
  },
  transport_encoding_refused: {
    stage: "transport",
    meaning: "The server sent a compressed body (a `Content-Encoding` other than identity).",
  },
  transport_failed: {
    stage: "transport",
    meaning: "Any other network failure (connection refused, reset, malformed response).",
  },
  auth_config_invalid: {
    stage: "auth",
    meaning: "The `auth` options are inconsistent (no flow, a redirect URI without `redirect`).",
  },
  auth_metadata_refused: {
    stage: "auth",
    meaning:
      "A metadata document or challenge names a URL the transport refuses; refused before any request to it.",
  },
  auth_metadata_invalid: {
    stage: "auth",
    meaning: "A metadata document is not JSON, lacks a required field, or names another resource.",
  },
  auth_issuer_mismatch: {
    stage: "auth",
    meaning: "The authorization server metadata names another `issuer` than the one discovered.",
  },
  auth_registration_failed: {
    stage: "auth",
    meaning:
      "No client: no client ID metadata document support and no (working) dynamic registration.",
  },
  auth_authorization_required: {
    stage: "auth",
    meaning:
      "A person must authorize: `redirect(url)` got the URL; call `auth.finish(callbackUrl)`, connect again.",
  },
  auth_callback_invalid: {
    stage: "auth",
    meaning: "The callback is unknown, forged (state, `iss`), or carries an authorization error.",
  },
  auth_token_failed: {
    stage: "auth",
    meaning:
      "The token endpoint refused the grant (code, refresh, client credentials, token exchange, JWT bearer).",
  },
  auth_client_auth_unsupported: {
    stage: "auth",
    meaning:
      "The authorization server advertises no token endpoint authentication method the client has credentials for.",
  },
  auth_credential_refused: {
    stage: "auth",
    meaning:
      "Client credentials were about to go to a URL other than the checked endpoint they are for; nothing was sent.",
  },
  auth_unauthorized: {
    stage: "auth",
    meaning: "The server still answered 401 after one new token; sluice does not loop.",
  },
  auth_insufficient_scope: {
    stage: "auth",
    meaning: "The server answered 403 `insufficient_scope`; the message names the scopes.",
  },
  auth_store_failed: {
    stage: "auth",
    meaning: "The token store failed, or a stored record does not decrypt with the key.",
  },
  transport_host_refused: {
    stage: "transport",
    meaning:
      "The host name itself is refused (cloud metadata names, `localhost` without the option).",
  },
  transport_ip_literal_refused: {
    stage: "transport",
    meaning: "The host is an IP address (any spelling) that is not an allowed loopback address.",
  },
  transport_permission_denied: {
    stage: "transport",
    meaning:
      "The runtime refused network access (Deno without `--allow-net` for the host, the DNS server, or the pinned address and 127.0.0.1).",
  },
  transport_redirect_refused: {
    stage: "transport",
    meaning: "The server answered with a redirect (any 3xx).",
  },
  transport_response_too_large: {
    stage: "transport",
    meaning: "The response body is, or declared it would be, larger than `maxResponseBytes`.",
  },
  transport_scheme_refused: {
    stage: "transport",
    meaning:
      "Not https, or plain http without the loopback option, or http to a non-loopback host.",
  },
  transport_timeout: {
    stage: "transport",
    meaning: "The one deadline over resolution, connection, headers and body passed.",
  },
  transport_tls_failed: {
    stage: "transport",
    meaning:
      "TLS failed: certificate not trusted or not valid for the host name, or no TLS handshake.",
  },
  transport_url_invalid: { stage: "transport", meaning: "The request URL does not parse." },
  transport_userinfo_refused: {
    stage: "transport",
    meaning: "The URL carries a user name or password.",
  },
  mcp_aborted: {
    stage: "session",
    in: ["DeadlineStop"],
    meaning: "The caller's signal aborted the request.",
  },
  mcp_connection_closed: { stage: "session", meaning: "The session is closed." },
  mcp_handshake_failed: {
    stage: "session",
    meaning: "Setting the session up failed (unusable reply, HTTP error, broken JSON-RPC).",
  },
  mcp_protocol_error: {
    stage: "session",
    meaning: "The server answered with a JSON-RPC error or a reply that is not JSON-RPC.",
  },
  mcp_protocol_version_unsupported: {
    stage: "session",
    meaning: "The server answered a protocol version outside sluice's allowlist.",
  },
  mcp_timeout: {
    stage: "session",
    in: ["DeadlineStop"],
    meaning: "The request's deadline passed; a late result is discarded.",
  },
  mcp_transport_error: {
    stage: "session",
    meaning: "The transport failed, and no sluice transport code says why.",
  },
  binding_duplicate_name: { stage: "discovery", meaning: "Two bindings share one local name." },
  binding_effect_invalid: {
    stage: "discovery",
    meaning:
      "A write binding's effect (in the binding or its policy) is not `write` or `destructive`.",
  },
  binding_effect_mismatch: {
    stage: "discovery",
    meaning: "A write binding's policy effect differs from its binding effect.",
  },
  binding_identity_missing: {
    stage: "discovery",
    meaning:
      "A write binding lacks a non-empty bindingId, bindingRevision, scopeId or scopeRevision.",
  },
  binding_invalid: {
    stage: "discovery",
    meaning: "A binding is not an object, has a non-boolean `concurrencySafe`, or there are none.",
  },
  binding_invalid_name: {
    stage: "discovery",
    meaning: "A binding's local name is empty or not `[A-Za-z0-9_-]{1,64}`.",
  },
  binding_policy_invalid: {
    stage: "discovery",
    meaning:
      'A binding\'s policy is not `{ mode: "read", title }` (read) or `{ mode: "confirm", title, effect }` (write), with a non-empty title.',
  },
  binding_scope_missing: {
    stage: "discovery",
    meaning:
      "A read binding has no `scope` field (a validator function or an explicit `null`), or a write binding's scope is not a function.",
  },
  discovery_options_invalid: {
    stage: "discovery",
    meaning:
      "A `listing` option that does not belong to the discovery's monitor, or another option discovery cannot use.",
  },
  limits_invalid: {
    stage: "discovery",
    meaning: "The limits are not an allowed adjustment of the defaults.",
  },
  mcp_catalog_too_large: {
    stage: "discovery",
    meaning: "The listed tools together exceed the catalog byte budget.",
  },
  mcp_description_too_large: {
    stage: "discovery",
    meaning: "A selected description exceeds the description byte budget.",
  },
  mcp_schema_too_large: {
    stage: "discovery",
    meaning: "A selected schema exceeds the per-schema byte budget.",
  },
  mcp_schema_unsupported: {
    stage: "discovery",
    meaning: "A selected schema does not fit the schema profile.",
  },
  mcp_too_many_pages: {
    stage: "discovery",
    meaning: "The server wants more pages than the page budget.",
  },
  mcp_too_many_tools: {
    stage: "discovery",
    meaning: "The server lists more tools than the tool budget.",
  },
  mcp_tool_missing: { stage: "discovery", meaning: "A bound tool is not in the server's list." },
  catalog_lock_mismatch: {
    stage: "discovery",
    meaning:
      "A bound tool's listed definition does not have the expected entry digest (a lock, or a changed tool not yet accepted).",
  },
  lock_invalid: {
    stage: "discovery",
    in: ["LockErrorCode"],
    meaning: "A lock is not JSON of the lock's shape.",
  },
  lock_version_unsupported: {
    stage: "discovery",
    in: ["LockErrorCode"],
    meaning: "A lock's `lockfileVersion` is not one this version reads.",
  },
  lock_digest_mismatch: {
    stage: "discovery",
    in: ["LockErrorCode"],
    meaning: "A digest in a lock is not the digest of what it covers.",
  },
  mcp_tool_task_required: {
    stage: "discovery",
    meaning: "A bound tool requires task-augmented execution, which sluice does not do.",
  },
  mcp_tool_screen_refused: {
    stage: "discovery",
    meaning:
      "A bound tool's model-visible text has a screen finding of a class its policy refuses (hidden text by default); `problem` is the finding's code, `path` its pointer.",
  },
  server_id_invalid: { stage: "discovery", meaning: "The server id is empty or not a string." },
  mcp_catalog_stale: {
    stage: "call",
    meaning: "The server's tool list changed since discovery; nothing was sent.",
  },
  mcp_input_required_unsupported: {
    stage: "session",
    meaning:
      "The server answered `input_required` (it needs elicitation, sampling or other input), which sluice cannot provide.",
  },
  mcp_invalid_arguments: {
    stage: "call",
    meaning: "The arguments are not a JSON object within budget that fits the input schema.",
  },
  mcp_result_invalid: {
    stage: "call",
    meaning: "The result breaks the tool's output schema or the result format.",
  },
  mcp_result_too_large: {
    stage: "call",
    meaning: "The result exceeds the block or byte budget.",
  },
  mcp_result_hidden_text: {
    stage: "call",
    meaning:
      'With `screenResults: "refuse"`: the result holds hidden or deceptive text (Tag characters, bidi controls, invisible characters, terminal escapes) a model would read and a person would not see.',
  },
  mcp_result_unsupported: {
    stage: "call",
    meaning: "The result carries content sluice does not pass on (image, audio, resources, tasks).",
  },
  mcp_scope_denied: { stage: "call", meaning: "The host's scope validator denied (or threw)." },
  mcp_tool_error: {
    stage: "call",
    meaning: "The tool reported an error (`isError`); its text is dropped.",
  },
  approval_conflict: {
    stage: "gate",
    in: ["ApprovalErrorCode"],
    meaning:
      "The run and call ids already belong to a pending approval with other content, a caller-named approval id is taken, or a caller-named grant id has other terms.",
  },
  approval_denied: {
    stage: "gate",
    in: ["ClaimRefusalCode"],
    meaning: "The inline approver did not return exactly `true` (or threw); nothing was sent.",
  },
  approval_pending: {
    stage: "gate",
    in: ["ClaimRefusalCode"],
    meaning: "The call waits for a person's decision in the approval store (then `resume`).",
  },
  approval_store_error: {
    stage: "gate",
    in: ["ApprovalErrorCode"],
    meaning: "The approval store failed; with effect `unknown` the write may have been sent.",
  },
  approval_store_not_durable: {
    stage: "gate",
    in: ["ApprovalErrorCode"],
    meaning: "The approval store is not durable and the host did not allow it for tests.",
  },
  approval_unavailable: {
    stage: "gate",
    meaning: 'The tool needs approval and nobody is configured to decide (`decidedBy: "none"`).',
  },
  batch_rejected: {
    stage: "gate",
    meaning: "Another call of the batch failed admission, so nothing of the batch ran.",
  },
  gate_duplicate_name: {
    stage: "gate",
    in: ["GateErrorCodeThrown", "ToolMapProblem"],
    meaning: "Two catalogs of one gate share a local name.",
  },
  gate_invalid_call_id: {
    stage: "gate",
    meaning: "The call has no non-empty string id, or its id repeats within the batch.",
  },
  gate_options_invalid: {
    stage: "gate",
    in: ["GateErrorCodeThrown"],
    meaning: "The gate's options, batch or run id are not the documented shape.",
  },
  gate_registration_invalid: {
    stage: "gate",
    in: ["GateErrorCodeThrown", "ToolMapProblem"],
    meaning: "A catalog entry is not a call plan made by discovery.",
  },
  gate_store_missing: {
    stage: "gate",
    in: ["GateErrorCodeThrown"],
    meaning: "Write tools have no approval store (and are not all decided inline or by nobody).",
  },
  unknown_tool: {
    stage: "gate",
    meaning: "The model called a name no catalog of this gate (or toolkit) has.",
  },
  approval_already_claimed: {
    stage: "approvals",
    in: ["ClaimRefusalCode"],
    meaning: "The approval was claimed before: it is used at most once.",
  },
  approval_arguments_changed: {
    stage: "approvals",
    in: ["ClaimRefusalCode"],
    meaning: "The arguments differ from the approved ones.",
  },
  approval_binding_mismatch: {
    stage: "approvals",
    in: ["ClaimRefusalCode"],
    meaning: "The current binding identity differs from the approved one.",
  },
  approval_expired: {
    stage: "approvals",
    in: ["ClaimRefusalCode", "ApprovalErrorCode"],
    meaning: "The approval passed its expiry before it was decided or claimed.",
  },
  approval_invalid_request: {
    stage: "approvals",
    in: ["ApprovalErrorCode"],
    meaning: "A request to the store is not the documented shape.",
  },
  approval_invalid_transition: {
    stage: "approvals",
    in: ["ApprovalErrorCode"],
    meaning: "The approval is not in a state that allows that move.",
  },
  approval_not_found: {
    stage: "approvals",
    in: ["ClaimRefusalCode", "GrantApprovalResult", "ApprovalErrorCode"],
    meaning: "No approval has that id.",
  },
  approval_scope_revoked: {
    stage: "approvals",
    in: ["ClaimRefusalCode"],
    meaning: "The scope revision changed since the approval.",
  },
  approval_superseded: {
    stage: "approvals",
    in: ["ClaimRefusalCode"],
    meaning:
      "A person approved an edited call instead; the call runs under the new approval (`supersededBy`).",
  },
  approval_grant_not_found: {
    stage: "approvals",
    in: ["GrantRefusalCode", "ApprovalErrorCode"],
    meaning: "No grant has that id.",
  },
  approval_grant_revoked: {
    stage: "approvals",
    in: ["GrantRefusalCode", "ApprovalErrorCode"],
    meaning: "The grant was revoked; it approves nothing.",
  },
  approval_grant_expired: {
    stage: "approvals",
    in: ["GrantRefusalCode"],
    meaning: "The grant passed its end; it approves nothing.",
  },
  approval_grant_exhausted: {
    stage: "approvals",
    in: ["GrantRefusalCode"],
    meaning: "The grant approved as many calls as it allows.",
  },
  approval_grant_mismatch: {
    stage: "approvals",
    in: ["GrantRefusalCode"],
    meaning:
      "The grant does not cover that approval (other tool, catalog or run, or arguments outside its schema), or it is no longer pending.",
  },
  approval_store_busy: {
    stage: "approvals",
    in: ["ApprovalErrorCode"],
    meaning: "The database stayed locked past `busyTimeoutMs`.",
  },
  approval_store_closed: {
    stage: "approvals",
    in: ["ApprovalErrorCode"],
    meaning: "The store was closed.",
  },
  approval_store_schema_too_new: {
    stage: "approvals",
    in: ["ApprovalErrorCode"],
    meaning: "The database was written by a newer sluice.",
  },
  approval_store_schema_invalid: {
    stage: "approvals",
    in: ["ApprovalErrorCode"],
    meaning:
      "The database's schema or its enforcement (triggers, constraints) was changed: the store refuses to open it.",
  },
  approval_store_url_invalid: {
    stage: "approvals",
    in: ["ApprovalErrorCode"],
    meaning: "The store URL is not a path, `file:`, `libsql:` or `https:` URL, or carries a token.",
  },
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
  inbox_options_invalid: {
    stage: "inbox",
    meaning:
      "`approvalInbox`, `oneTimeLogin` or `webhookNotifier` was given a missing or malformed option (no `authorize`, a short secret).",
  },
  inbox_unauthorized: {
    stage: "inbox",
    meaning: "401: `authorize` refused the request (no person), or the login session is gone.",
  },
  inbox_origin_refused: {
    stage: "inbox",
    meaning: "403: a form was posted from an origin the inbox does not allow (cross-site).",
  },
  inbox_token_invalid: {
    stage: "inbox",
    meaning:
      "403: a form's token is missing, forged, expired, or was issued to another person, approval or action.",
  },
  inbox_stale_form: {
    stage: "inbox",
    meaning:
      "409: the approval changed after the form was rendered (decided elsewhere, a replayed form); nothing was recorded.",
  },
  inbox_form_invalid: {
    stage: "inbox",
    meaning:
      "400/413/415: the form is not urlencoded, too large, repeats a field, or lacks a required one.",
  },
  inbox_not_found: {
    stage: "inbox",
    meaning: "404/405: no such page or approval, or the wrong method for it.",
  },
  inbox_login_invalid: {
    stage: "inbox",
    meaning: "401: the one-time login link is wrong, was already used, or expired.",
  },
  inbox_webhook_failed: {
    stage: "inbox",
    meaning: "A webhook notifier's endpoint answered with a status other than 2xx.",
  },
  cli_db_missing: {
    stage: "cli",
    meaning:
      "The `--db` file does not exist, or is an empty database, and `--create` was not given.",
  },
  cli_db_not_a_store: {
    stage: "cli",
    meaning: "The `--db` database is not a sluice approval store; it was left untouched.",
  },
  cli_db_not_a_file: {
    stage: "cli",
    meaning:
      "The `--db` path names a directory, a named pipe (FIFO), a socket or a device, not a database file.",
  },
  cli_db_unreadable: {
    stage: "cli",
    meaning: "The `--db` path cannot be examined or read (permissions, a symbolic-link loop, ...).",
  },
  cli_db_token_in_url: {
    stage: "cli",
    meaning:
      "The `--db` URL carries a credential (user info, a token query parameter, or a fragment).",
  },
  cli_inbox_listen_failed: {
    stage: "cli",
    meaning: "`sluice inbox` could not listen on its loopback port (in use, or not allowed).",
  },
  cli_login_listen_failed: {
    stage: "cli",
    meaning:
      "`sluice login` could not listen for the browser's redirect on its loopback port (in use, or not allowed).",
  },
  cli_inspect_failed: {
    stage: "cli",
    meaning: "`sluice inspect` failed for a reason that has no code of its own.",
  },
  cli_lock_unreadable: {
    stage: "cli",
    meaning: "The `--lock` file exists but cannot be read (or written, when absent).",
  },
} as const satisfies Readonly<Record<string, CodeEntry>>;

/**
 * Any code sluice returns or throws.
 *
 * @category Errors
 */
export type SluiceCode = keyof typeof CODES;

/**
 * The codes of one stage of the catalog, or of several (`CodeOf<"session" | "transport">`).
 *
 * @example
 * ```ts
 * import type { CodeOf } from "@sluice/mcp";
 * const code: CodeOf<"identity"> = "json_cycle";
 * ```
 *
 * @category Errors
 */
export type CodeOf<Stage extends CodeStage> = {
  [Code in SluiceCode]: (typeof CODES)[Code]["stage"] extends Stage ? Code : never;
}[SluiceCode];

/**
 * The codes the catalog files under one {@link CodeGroup} (or any of several).
 *
 * @example
 * ```ts
 * import type { CodeIn } from "@sluice/mcp";
 * const code: CodeIn<"LockErrorCode"> = "lock_invalid";
 * ```
 *
 * @category Errors
 */
export type CodeIn<Group extends CodeGroup> = {
  [Code in SluiceCode]: (typeof CODES)[Code] extends { readonly in: readonly (infer Named)[] }
    ? Group extends Named ? Code : never
    : never;
}[SluiceCode];

/**
 * The stable code of a thrown value sluice made (any `SluiceError`), or `undefined` for
 * anything else. Replaces reading `.code` off an unknown value.
 *
 * @example
 * ```ts
 * import { codeOf, SluiceError } from "@sluice/mcp";
 * codeOf(new SluiceError("json_cycle", "a cycle")); // "json_cycle"
 * codeOf(new Error("other")); // undefined
 * ```
 *
 * @param error any thrown value
 *
 * @category Errors
 */
export function codeOf(error: unknown): SluiceCode | undefined {
  return error instanceof SluiceError ? error.code : undefined;
}
