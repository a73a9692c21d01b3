/**
 * What the host answers and hears while a call runs: elicitation requests (2025 eras and
 * 2026-07-28 `input_required` alike), progress, and which call each belongs to.
 *
 * @module
 */
import type { JsonObject } from "../identity/mod.ts";
import type { RemoteText } from "../session/remote_text.ts";
import type { SessionProgress } from "../session/session.ts";
import type { CodeOf } from "../codes.ts";

/**
 * The call a server request or a progress notification belongs to, in the host's own names.
 *
 * @category Discovery and calls
 */
export interface CallOrigin {
  /** The host's server id. */
  readonly server: string;
  /** The tool's local (model-facing) name. */
  readonly tool: string;
  /** The tool's name on the server. */
  readonly remoteTool: string;
  /** The agent run, when the call has one (calls through the gate always do). */
  readonly runId?: string;
  /** The model's tool call id, when the call has one. */
  readonly callId?: string;
  /** The approval the call runs under, for a write. */
  readonly approvalId?: string;
}

/**
 * How an elicitation reached sluice, and so how surely it is tied to its call:
 * `"call_stream"` (2025: on the call's own reply stream), `"input_required"` (2026-07-28: in
 * the call's own result), or `"session_stream"` (2025: on the session's standalone stream
 * while this was the session's only call in flight that answers elicitation; the tie is
 * inferred, the server did not state it).
 *
 * @category Discovery and calls
 */
export type ElicitationDelivery = "call_stream" | "input_required" | "session_stream";

/**
 * A form the server asks a person to fill (form mode). Everything in it is the server's:
 * untrusted, shown to a person, never to the model. The schema has passed sluice's schema
 * profile and the elicitation rules (a flat object of string, number, integer, boolean and
 * enum properties), and the answer is validated against it before it is sent.
 *
 * @category Discovery and calls
 */
export interface FormElicitation {
  /** Form mode. */
  readonly kind: "form";
  /** How it reached sluice. */
  readonly via: ElicitationDelivery;
  /** The server's message to the person. */
  readonly message: RemoteText;
  /** The server's requested schema, as received (its titles and descriptions are remote text). */
  readonly requestedSchema: Readonly<JsonObject>;
  /**
   * The schema's `default` of each property whose default fits it (SEP-1034): what a form
   * shows filled in. sluice never applies them by itself.
   */
  readonly defaults: Readonly<JsonObject>;
}

/**
 * A URL the server asks a person to open (URL mode), checked by the rules of every outbound
 * URL. sluice never opens it; the host shows it to a person.
 *
 * @category Discovery and calls
 */
export interface UrlElicitation {
  /** URL mode. */
  readonly kind: "url";
  /** How it reached sluice. */
  readonly via: ElicitationDelivery;
  /** The server's message to the person. */
  readonly message: RemoteText;
  /** The checked URL (https; no credentials, no IP literal). */
  readonly url: URL;
  /** The server's id of this elicitation. */
  readonly elicitationId: string;
}

/**
 * What a server asks of the host's `elicit` handler.
 *
 * @category Discovery and calls
 */
export type ElicitationRequest = FormElicitation | UrlElicitation;

/**
 * The person's answer: `accept` (with the form's content; none for a URL), `decline`, or
 * `cancel` (dismissed).
 *
 * @category Discovery and calls
 */
export type ElicitationAnswer =
  | { readonly action: "accept"; readonly content?: JsonObject }
  | { readonly action: "decline" }
  | { readonly action: "cancel" };

/**
 * The host's elicitation handler. Given it, sluice declares the `elicitation` capability;
 * without it, none. It gets the request, the call it belongs to, and a signal that fires when
 * that call ends (its deadline, the caller's abort). A throw or a rejection answers `cancel`.
 *
 * @category Discovery and calls
 */
export type ElicitHandler = (
  request: ElicitationRequest,
  call: CallOrigin,
  signal: AbortSignal,
) => ElicitationAnswer | Promise<ElicitationAnswer>;

/**
 * Hears one progress notification of a call (its message is remote text, never shown to the
 * model by sluice). Exceptions are swallowed.
 *
 * @category Discovery and calls
 */
export type ProgressHandler = (call: CallOrigin, progress: SessionProgress) => void;

/**
 * Codes an elicitation ends with when sluice, not the person, decided its answer.
 *
 * @category Discovery and calls
 */
export type ElicitationErrorCode = CodeOf<"call"> & `elicitation_${string}`;

/**
 * What became of one elicitation: the action sent to the server and, when sluice decided it,
 * the code that says why. Carries no text of the server's and no content of the person's.
 *
 * @category Discovery and calls
 */
export interface ElicitationOutcome {
  /** The call it belonged to. */
  readonly call: CallOrigin;
  /** The mode the server asked for (`"unknown"` when the request was unusable). */
  readonly mode: "form" | "url" | "unknown";
  /** The action sent to the server. */
  readonly action: "accept" | "decline" | "cancel";
  /** Why sluice answered for the person, when it did. */
  readonly errorCode?: ElicitationErrorCode;
}

/**
 * The host's handlers a call runs with.
 *
 * @category Discovery and calls
 */
export interface CallHandlers {
  /** Answers elicitation requests. */
  readonly elicit?: ElicitHandler;
  /** Which modes the host answers (default: form only). */
  readonly elicitationModes?: { readonly form: boolean; readonly url: boolean };
  /** Accept loopback URLs in URL mode (the connection's test-only loopback option). */
  readonly allowLoopbackUrls?: boolean;
  /** Hears progress; only then is a progress token sent. */
  readonly onProgress?: ProgressHandler;
  /**
   * With `onProgress`: an idle deadline (ms) that each progress notification restarts. The
   * tool's timeout stays the call's total deadline, which progress never extends.
   */
  readonly progressIdleTimeoutMs?: number;
  /** Hears what became of each elicitation. */
  readonly onElicitation?: (outcome: ElicitationOutcome) => void;
}
