/**
 * Per-form tokens against cross-site request forgery and stale forms. A token is an HMAC over
 * the person, the approval, the action and the approval's version (its state and history
 * length) when the form was rendered, plus the time it was issued. A token is accepted only for
 * the same person, approval and action while the approval is still at that version, so a form
 * replayed after the approval changed, or forged without the page, is refused.
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

import { base64url } from "./secrets.ts";

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

function message(binding: Omit<FormBinding, "version">, version: string, issuedAt: number) {
  // Newlines cannot occur in the parts that matter: ids are compared as given, and a person id
  // with a newline still yields a different message from any other split.
  return encoder.encode(
    JSON.stringify([binding.person, binding.approvalId, binding.action, version, issuedAt]),
  );
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
    const mac = await crypto.subtle.sign(
      "HMAC",
      await this.#key,
      message(binding, binding.version, issuedAt),
    );
    return `${issuedAt.toString(36)}.${base64url(new Uint8Array(mac))}`;
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
    const dot = token.indexOf(".");
    if (dot < 1) return "invalid";
    const issuedAt = parseInt(token.slice(0, dot), 36);
    const mac = fromBase64url(token.slice(dot + 1));
    if (!Number.isSafeInteger(issuedAt) || mac === undefined) return "invalid";
    const valid = await crypto.subtle.verify(
      "HMAC",
      await this.#key,
      mac,
      message(binding, renderedVersion, issuedAt),
    );
    if (!valid) return "invalid";
    if (this.#now() - issuedAt > this.#ttlMs) return "expired";
    return renderedVersion === binding.version ? "ok" : "stale";
  }
}
