/**
 * One elicitation request of a server, answered through the host's handler: the request
 * checked (form mode: the requested schema against the schema profile and the elicitation
 * rules; URL mode: the URL against the outbound URL rules), the handler asked with the call it
 * belongs to, and its answer checked against the requested schema before anything is sent.
 * Whatever sluice refuses is declined (a request) or cancelled (an answer) with a code.
 *
 * @module
 */
import { isRecord, type JsonObject, type JsonValue } from "../identity/mod.ts";
import { untilAborted } from "../deadline.ts";
import { compileSchema } from "../schema/compile.ts";
import type { SchemaValidator } from "../schema/types.ts";
import { remoteText } from "../session/remote_text.ts";
import { elicitationUrl } from "../session/elicitation_url.ts";
import type {
  CallHandlers,
  CallOrigin,
  ElicitationAnswer,
  ElicitationDelivery,
  ElicitationErrorCode,
  ElicitationOutcome,
  ElicitationRequest,
} from "./host_handlers.ts";

/** The property types an elicitation form may ask for (MCP's primitive schema definitions). */
const PRIMITIVES: ReadonlySet<string> = new Set(["string", "number", "integer", "boolean"]);

/** Most properties of one form. */
const MAX_FORM_PROPERTIES = 64;

/** A checked request, or the code it is declined with. */
type Checked =
  | { readonly request: ElicitationRequest; readonly validate?: SchemaValidator }
  | { readonly mode: ElicitationOutcome["mode"]; readonly refused: ElicitationErrorCode };

/** Whether `schema` is a property MCP's elicitation allows: a primitive, or a multi-select. */
function isFormProperty(schema: unknown): boolean {
  if (!isRecord(schema)) return false;
  if (typeof schema.type === "string" && PRIMITIVES.has(schema.type)) return true;
  // Multi-select enums: an array of strings drawn from `items.enum` or `items.anyOf`.
  return schema.type === "array" && isRecord(schema.items) &&
    (Array.isArray(schema.items.enum) || Array.isArray(schema.items.anyOf));
}

/** The defaults of `properties` that fit their own property schema. */
function defaultsOf(properties: Readonly<Record<string, JsonValue>>): JsonObject {
  const defaults: Record<string, JsonValue> = {};
  for (const [name, schema] of Object.entries(properties)) {
    if (!isRecord(schema) || !("default" in schema)) continue;
    try {
      if (compileSchema(schema)(schema.default).valid) {
        defaults[name] = schema.default as JsonValue;
      }
    } catch {
      // A property the profile refuses has refused the whole form already.
    }
  }
  return defaults;
}

function checkForm(params: Record<string, unknown>, via: ElicitationDelivery): Checked {
  const schema = params.requestedSchema;
  const properties = isRecord(schema) ? schema.properties : undefined;
  if (
    !isRecord(schema) || schema.type !== "object" || !isRecord(properties) ||
    Object.keys(properties).length > MAX_FORM_PROPERTIES ||
    !Object.values(properties).every(isFormProperty)
  ) {
    return { mode: "form", refused: "elicitation_schema_unsupported" };
  }
  let validate: SchemaValidator;
  try {
    validate = compileSchema(schema);
  } catch {
    return { mode: "form", refused: "elicitation_schema_unsupported" };
  }
  return {
    request: Object.freeze({
      kind: "form",
      via,
      message: remoteText(params.message),
      requestedSchema: schema as JsonObject,
      defaults: Object.freeze(defaultsOf(properties as Record<string, JsonValue>)),
    }),
    validate,
  };
}

function checkUrlRequest(
  params: Record<string, unknown>,
  handlers: CallHandlers,
  via: ElicitationDelivery,
): Checked {
  if (handlers.elicitationModes?.url !== true) {
    return { mode: "url", refused: "elicitation_mode_unsupported" };
  }
  if (typeof params.url !== "string" || typeof params.elicitationId !== "string") {
    return { mode: "url", refused: "elicitation_request_invalid" };
  }
  const checked = elicitationUrl(params.url, handlers.allowLoopbackUrls === true);
  if ("refused" in checked) return { mode: "url", refused: "elicitation_url_refused" };
  return {
    request: Object.freeze({
      kind: "url",
      via,
      message: remoteText(params.message),
      url: checked.url,
      elicitationId: params.elicitationId,
    }),
  };
}

/** The request's checks by mode. */
function checkRequest(
  params: unknown,
  handlers: CallHandlers,
  via: ElicitationDelivery,
): Checked {
  if (!isRecord(params) || typeof params.message !== "string") {
    return { mode: "unknown", refused: "elicitation_request_invalid" };
  }
  const mode = params.mode ?? "form";
  if (mode === "url") return checkUrlRequest(params, handlers, via);
  if (mode !== "form") return { mode: "unknown", refused: "elicitation_request_invalid" };
  if (handlers.elicitationModes?.form === false) {
    return { mode: "form", refused: "elicitation_mode_unsupported" };
  }
  return checkForm(params, via);
}

/** The handler's answer checked: the result to send, or the code it is cancelled with. */
function checkAnswer(
  answer: unknown,
  request: ElicitationRequest,
  validate: SchemaValidator | undefined,
): JsonObject | ElicitationErrorCode {
  if (!isRecord(answer)) return "elicitation_answer_invalid";
  if (answer.action === "decline" || answer.action === "cancel") return { action: answer.action };
  if (answer.action !== "accept") return "elicitation_answer_invalid";
  if (request.kind === "url") return { action: "accept" };
  const content = answer.content ?? {};
  const properties = request.requestedSchema.properties as Record<string, unknown>;
  if (
    !isRecord(content) || validate === undefined || !validate(content).valid ||
    // Only what the form asked for: a property it does not name is not sent either.
    Object.keys(content).some((name) => !Object.hasOwn(properties, name))
  ) {
    return "elicitation_answer_invalid";
  }
  // A detached copy: what was validated is what is sent.
  return { action: "accept", content: structuredClone(content) as JsonObject };
}

function report(
  handlers: CallHandlers,
  outcome: ElicitationOutcome,
): void {
  try {
    handlers.onElicitation?.(Object.freeze(outcome));
  } catch {
    // The host's listener never affects the call.
  }
}

/**
 * Answers one `elicitation/create` of the call `call`: resolves with the result to send the
 * server; never rejects.
 *
 * @param params the request's params as the server sent them
 * @param call the call it belongs to
 * @param handlers the host's handlers (`elicit` among them)
 * @param signal fires when the call ends
 * @param via how the request reached sluice
 *
 * @category Discovery and calls
 */
export async function answerElicitation(
  params: unknown,
  call: CallOrigin,
  handlers: CallHandlers,
  signal: AbortSignal,
  via: ElicitationDelivery,
): Promise<JsonObject> {
  const checked = handlers.elicit === undefined
    ? { mode: "unknown" as const, refused: "elicitation_mode_unsupported" as const }
    : checkRequest(params, handlers, via);
  if ("refused" in checked) {
    report(handlers, { call, mode: checked.mode, action: "decline", errorCode: checked.refused });
    return { action: "decline" };
  }
  const { request, validate } = checked;
  let answer: ElicitationAnswer | undefined;
  try {
    // The wait ends with the call, whether or not the handler honours the signal.
    answer = await untilAborted(Promise.resolve(handlers.elicit!(request, call, signal)), signal);
  } catch {
    report(handlers, {
      call,
      mode: request.kind,
      action: "cancel",
      errorCode: "elicitation_handler_failed",
    });
    return { action: "cancel" };
  }
  const result = checkAnswer(answer, request, validate);
  if (typeof result === "string") {
    report(handlers, { call, mode: request.kind, action: "cancel", errorCode: result });
    return { action: "cancel" };
  }
  report(handlers, { call, mode: request.kind, action: result.action as "accept" });
  return result;
}
