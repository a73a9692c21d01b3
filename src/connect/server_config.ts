/**
 * The server entries of a `connectAll()` configuration: the options every entry has, and its
 * two forms, Streamable HTTP (`url`) and stdio (`transport: "stdio"`, `command`).
 *
 * @module
 */
import type { ResultScreen } from "../calls/result.ts";
import type { ScreenPolicy } from "../catalog/screening.ts";
import type { OAuthClient } from "../auth/oauth_client.ts";
import type { StdioCommand } from "./stdio_config.ts";

/**
 * What every server entry of `ConnectAllConfig` has, whichever transport reaches it.
 *
 * @category Agent developers: connect()
 */
export interface ServerEntryOptions {
  /** The owner's id: 1 to 48 characters of `[A-Za-z0-9_-]`, a letter or `_` first, unique. Prefixes local names. */
  readonly id: string;
  /**
   * Trust this server's `readOnlyHint: true` annotation: such tools need no approval. Default
   * `false`: annotations are remote text and grant nothing unless the owner says so here.
   */
  readonly trustReadOnlyHint?: boolean;
  /**
   * The poisoning screen's policy for this server's tools (docs/screen.md), by class:
   * `"refuse"` skips a tool with `mcp_tool_screen_refused`, `"report"` keeps it and reports
   * the finding. Default: `hidden` refused, `markup`, `shadowing` and `exfiltration` reported.
   * `false` turns the screen off for the server. `screenTools` overrides it per tool.
   */
  readonly screen?: ScreenPolicy | false;
  /**
   * Screen this server's tool results for hidden or deceptive text (Tag characters, bidi
   * controls, invisible characters, terminal escapes): `"refuse"` fails such a call with
   * `mcp_result_hidden_text`, `"reveal"` writes each such character as a visible escape
   * (`\u{E0041}`). Default: off (results are data the model asked for; see docs/screen.md).
   */
  readonly screenResults?: ResultScreen;
}

/**
 * A remote server reached over Streamable HTTP (the default form).
 *
 * @category Agent developers: connect()
 */
export interface HttpServerConfig extends ServerEntryOptions {
  /** `"http"`, or absent. */
  readonly transport?: "http";
  /** The Streamable HTTP endpoint (https; loopback http only with the transport option). */
  readonly url: string | URL;
  /** Bearer token, sent only to this URL's origin. */
  readonly token?: string;
  /**
   * OAuth 2.1 for this server (instead of `token`): discovery, tokens and refresh through the
   * hardened fetch (see docs/oauth.md).
   */
  readonly auth?: OAuthClient;
  /** Only in the stdio form. */
  readonly command?: never;
}

/**
 * A local server started as a child process and spoken to over stdio (docs/stdio.md): on Deno,
 * Node and Bun; refused with `stdio_unsupported_runtime` where the runtime cannot start
 * processes (Workers).
 *
 * @category Agent developers: connect()
 */
export interface StdioServerConfig extends ServerEntryOptions, StdioCommand {
  /** Always `"stdio"`. */
  readonly transport: "stdio";
  /** Only in the HTTP form. */
  readonly url?: never;
  /** Only in the HTTP form. */
  readonly token?: never;
  /** Only in the HTTP form. */
  readonly auth?: never;
}

/**
 * One server of `ConnectAllConfig`: over Streamable HTTP (`url`) or stdio
 * (`transport: "stdio"`, `command`).
 *
 * @category Agent developers: connect()
 */
export type ServerConfig = HttpServerConfig | StdioServerConfig;
