/**
 * Per-form tokens against cross-site request forgery and stale forms. A token is an HMAC over
 * the person, the approval, the action and the approval's version (its state and history
 * length) when the form was rendered, plus the time it was issued and a random nonce (so no two
 * rendered forms share a token). A token is accepted only for the same person, approval and
 * action while the approval is still at that version, so a form replayed after the approval
 * changed, or forged without the page, is refused. A form whose action leaves the approval's
 * version as it was (a grant) records what it made under {@link FormTokens.submissionId}, so
 * its replay finds that instead of making another.
 *
 * @module
 */

/**
 * What a form token is bound to.
 *
 * @category Approval inbox
 */
export interface FormBinding {
  /** The authorized person the form was rendered for. */
  readonly person: string;
  /** The approval the form acts on. */
  readonly approvalId: string;
  /** The form's action (`decide`, `reconcile`). */
  readonly action: string;
  /** The approval's version when the form was rendered (state and history length). */
  readonly version: string;
}

/**
 * Why a token was refused: `invalid` (missing, forged, other binding) or `stale`.
 *
 * @category Approval inbox
 */
export type FormTokenCheck = "ok" | "invalid" | "stale" | "expired";

import { base64url, randomToken } from "./secrets.ts";

const encoder = new TextEncoder();

function fromBase64url(value: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(value)) return undefined;
  try {
    const binary = atob(value.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}

function message(
  binding: Omit<FormBinding, "version">,
  version: string,
  issuedAt: number,
  nonce: string,
) {
  // A JSON array keeps the parts apart whatever characters a person or approval id holds.
  return encoder.encode(
    JSON.stringify([binding.person, binding.approvalId, binding.action, version, issuedAt, nonce]),
  );
}

/** `bytes` as a UUID (version 8: sluice's own layout, the RFC 9562 variant). */
function uuidOf(bytes: Uint8Array): string {
  const b = bytes.slice(0, 16);
  b[6] = (b[6] & 0x0f) | 0x80;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${
    hex.slice(20)
  }`;
}

/**
 * Issues and checks form tokens under one HMAC key.
 *
 * @category Approval inbox
 */
export class FormTokens {
  readonly #key: Promise<CryptoKey>;
  readonly #ttlMs: number;
  readonly #now: () => number;

  /**
   * Creates the token issuer.
   *
   * @param secret the HMAC key material (at least 32 bytes)
   * @param ttlMs how long a rendered form stays usable
   * @param now clock in milliseconds since the Unix epoch
   */
  constructor(secret: Uint8Array<ArrayBuffer>, ttlMs: number, now: () => number) {
    this.#key = crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
      "verify",
    ]);
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  /** A token for a form bound to `binding`, issued now. */
  async issue(binding: FormBinding): Promise<string> {
    const issuedAt = this.#now();
    const nonce = randomToken(12);
    const mac = await crypto.subtle.sign(
      "HMAC",
      await this.#key,
      message(binding, binding.version, issuedAt, nonce),
    );
    return `${issuedAt.toString(36)}.${nonce}.${base64url(new Uint8Array(mac))}`;
  }

  /**
   * The id under which what one submission of the form with `token` made is recorded: a UUID
   * derived from the token (which is unique to one rendered form), so a replay of that form
   * (a resubmit, or the same body posted again at once) names the same record and a store that
   * keeps one record per id keeps one. Call it only for a token {@link check} accepted.
   */
  async submissionId(token: string): Promise<string> {
    const digest = await crypto.subtle.digest(
      "SHA-256",
      encoder.encode(`sluice inbox form submission\n${token}`),
    );
    return uuidOf(new Uint8Array(digest));
  }

  /**
   * Checks `token` for `binding`, where `binding.version` is the approval's version now and
   * `renderedVersion` the version the form says it was rendered at.
   */
  async check(
    token: string | undefined,
    binding: FormBinding,
    renderedVersion: string | undefined,
  ): Promise<FormTokenCheck> {
    if (token === undefined || renderedVersion === undefined) return "invalid";
    const parts = token.split(".");
    if (parts.length !== 3 || !/^[0-9a-z]+$/.test(parts[0])) return "invalid";
    const [time, nonce, encodedMac] = parts;
    const issuedAt = parseInt(time, 36);
    const mac = fromBase64url(encodedMac);
    if (!Number.isSafeInteger(issuedAt) || nonce === "" || mac === undefined) return "invalid";
    const valid = await crypto.subtle.verify(
      "HMAC",
      await this.#key,
      mac,
      message(binding, renderedVersion, issuedAt, nonce),
    );
    if (!valid) return "invalid";
    if (this.#now() - issuedAt > this.#ttlMs) return "expired";
    return renderedVersion === binding.version ? "ok" : "stale";
  }
}
