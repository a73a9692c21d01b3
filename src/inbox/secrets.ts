/**
 * Random tokens and their comparison, shared by the inbox's form tokens, login and webhooks.
 *
 * @module
 */

/**
 * `bytes` as base64url without padding.
 *
 * @category Approval inbox
 */
export function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * `bytes` random bytes, base64url.
 *
 * @category Approval inbox
 */
export function randomToken(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/**
 * Whether two secrets are equal, compared through their digests so timing reveals no prefix.
 *
 * @category Approval inbox
 */
export async function equalSecrets(a: string, b: string): Promise<boolean> {
  const encoder = new TextEncoder();
  const [x, y] = await Promise.all(
    [a, b].map(async (value) =>
      new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(value)))
    ),
  );
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i] ^ y[i];
  return diff === 0;
}
