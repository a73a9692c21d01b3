/**
 * The run and call ids a served call is recorded under. They name the call's approval, so a
 * client that sends the same call again (a retry, or the model calling again after a person
 * decided) meets the same approval and never a second dispatch.
 *
 * @module
 */
import { digest } from "../identity/mod.ts";

/**
 * The `_meta` keys of a `tools/call` request that carry the client's own run and call ids.
 *
 * @category sluice serve
 */
export const CALL_ID_META_KEYS: {
  readonly runId: "io.sluice/runId";
  readonly callId: "io.sluice/callId";
} = Object.freeze({
  runId: "io.sluice/runId",
  callId: "io.sluice/callId",
});

/**
 * The ids of one served call.
 *
 * @category sluice serve
 */
export interface ServedCallIds {
  /** `serve:<client>:<run>`: the client's name is part of it, so clients never share calls. */
  readonly runId: string;
  /** The client's call id, or `args:<digest of tool and arguments>`. */
  readonly callId: string;
}

const ID = /^[\x21-\x7e]{1,128}$/;

/**
 * The ids of a call: the client's `_meta` run and call ids when it sends them (1 to 128
 * printable ASCII characters each), else run `default` and a call id derived from the tool and
 * the arguments, so that the same call sent again is the same call. A client that means to
 * make the same write twice sends its own call ids.
 *
 * @param client the authenticated client's name
 * @param tool the served tool's local name
 * @param args the arguments as sent
 * @param meta the request's `_meta`
 * @param derive whether to derive the call id from the arguments (calls that meet an approval);
 *   otherwise a call without its own id gets a fresh one
 *
 * @category sluice serve
 */
export async function servedCallIds(
  client: string,
  tool: string,
  args: unknown,
  meta: Readonly<Record<string, unknown>> | undefined,
  derive = true,
): Promise<ServedCallIds> {
  const run = idOf(meta?.[CALL_ID_META_KEYS.runId]) ?? "default";
  const own = idOf(meta?.[CALL_ID_META_KEYS.callId]);
  let callId = own;
  if (callId === undefined && !derive) callId = `call:${crypto.randomUUID()}`;
  if (callId === undefined) {
    try {
      callId = `args:${await digest({ tool, arguments: args ?? {} })}`;
    } catch {
      // Arguments that are not JSON never pass admission; they get a call of their own.
      callId = `call:${crypto.randomUUID()}`;
    }
  }
  return { runId: `serve:${client}:${run}`, callId };
}

function idOf(value: unknown): string | undefined {
  return typeof value === "string" && ID.test(value) ? value : undefined;
}
