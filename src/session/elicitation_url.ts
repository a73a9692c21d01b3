/**
 * The URL of a URL-mode elicitation, checked by the rules every outbound URL of sluice meets
 * (`checkUrl`: https only, no credentials, no IP-literal hosts, no metadata or loopback names
 * unless the loopback option is set). sluice never opens it; a person does, after the host
 * shows it.
 *
 * @module
 */
import { checkUrl } from "../transport/policy.ts";
import { type TransportErrorCode, transportErrorCode } from "../transport/errors.ts";

/**
 * The checked URL, or the transport code of the rule it broke.
 *
 * @param raw the URL the server sent
 * @param allowLoopback the connection's loopback option (tests and local development)
 */
export function elicitationUrl(
  raw: string,
  allowLoopback: boolean,
): { readonly url: URL } | { readonly refused: TransportErrorCode } {
  try {
    return { url: checkUrl(raw, { allowLoopback }).url };
  } catch (error) {
    return { refused: transportErrorCode(error) ?? "transport_url_invalid" };
  }
}
