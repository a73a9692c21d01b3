/**
 * Reading a form a person posted: only from an allowed origin, urlencoded and bounded, carrying
 * a token this inbox issued to that person for that subject, action and version.
 *
 * @module
 */
import type { JsonObject } from "../identity/mod.ts";
import type { InboxSettings } from "./options.ts";
import { Refusal } from "./responses.ts";

/** The longest form body read, in bytes. */
const MAX_FORM_BYTES = 16 * 1024;
/** The longest note or evidence kept, in characters. */
const MAX_TEXT = 2000;

/** Reads a urlencoded form of at most {@link MAX_FORM_BYTES}. */
async function readForm(request: Request): Promise<URLSearchParams> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) {
    throw new Refusal(415, "inbox_form_invalid", "The form must be sent urlencoded.");
  }
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_FORM_BYTES) {
    throw new Refusal(413, "inbox_form_invalid", "The form is too large.");
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body !== null) {
    for await (const chunk of request.body) {
      size += chunk.byteLength;
      if (size > MAX_FORM_BYTES) {
        throw new Refusal(413, "inbox_form_invalid", "The form is too large.");
      }
      chunks.push(chunk);
    }
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new URLSearchParams(new TextDecoder().decode(bytes));
}

/** A single form field: absent, or present exactly once. */
export function single(form: URLSearchParams, name: string): string | undefined {
  const values = form.getAll(name);
  if (values.length > 1) throw new Refusal(400, "inbox_form_invalid", `${name} given twice.`);
  return values[0];
}

/** A person's text field: trimmed, bounded; `undefined` when empty. */
export function personText(form: URLSearchParams, name: string): string | undefined {
  const value = single(form, name)?.trim();
  if (value === undefined || value === "") return undefined;
  if (value.length > MAX_TEXT) {
    throw new Refusal(400, "inbox_form_invalid", `${name} is longer than ${MAX_TEXT} characters.`);
  }
  return value;
}

/** The edited arguments of the approve-with-edits form: one JSON object. */
export function editedArguments(text: string | undefined): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(text ?? "");
  } catch {
    throw new Refusal(400, "inbox_form_invalid", "The arguments are not valid JSON.");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Refusal(400, "inbox_form_invalid", "The arguments must be a JSON object.");
  }
  return value as JsonObject;
}

/** Whether `request` comes from an origin forms are accepted from. */
function originAllowed(settings: InboxSettings, request: Request): boolean {
  const origin = request.headers.get("origin");
  const allowed = settings.allowedOrigins ?? [new URL(request.url).origin];
  if (origin !== null) return allowed.includes(origin);
  // No Origin header: only a same-origin request marked so by the browser itself.
  return request.headers.get("sec-fetch-site") === "same-origin" &&
    settings.allowedOrigins === undefined;
}

/** The origin check, the form, and its token: refusals throw, `stale` is returned. */
export async function acceptForm(
  settings: InboxSettings,
  request: Request,
  person: string,
  subject: string,
  action: string,
  version: string,
): Promise<{ form: URLSearchParams; stale: boolean }> {
  if (!originAllowed(settings, request)) {
    throw new Refusal(403, "inbox_origin_refused", "Forms are accepted from this inbox only.");
  }
  const form = await readForm(request);
  const check = await settings.tokens.check(
    single(form, "token"),
    { person, approvalId: subject, action, version },
    single(form, "version"),
  );
  if (check === "invalid" || check === "expired") {
    throw new Refusal(
      403,
      "inbox_token_invalid",
      check === "expired"
        ? "This form has expired; reload the page."
        : "This form was not issued to you by this inbox.",
    );
  }
  return { form, stale: check === "stale" };
}
