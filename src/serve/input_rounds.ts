/**
 * Multi round-trip served calls (2026-07-28, SEP-2322) for a client that declared elicitation:
 * while the upstream call asks for input, the client's `tools/call` is answered
 * `input_required` with the waiting requests and a `requestState` the gateway minted (an
 * opaque, random id of the call in flight, valid only for the client it was given to); the
 * client sends the call again with its `inputResponses` and that state, the answers go to the
 * upstream, and the call is answered again: its result, or the next round. The upstream call
 * stays in flight in this process between rounds, under its own deadline.
 *
 * @module
 */
import { serverSdk } from "./sdk.ts";
import type { PendingInputs } from "./relay.ts";

/** One served call in flight that may ask its client for input. */
export interface Conversation<T> {
  readonly client: string;
  readonly inputs: PendingInputs;
  /** The call, to what it answers with. */
  readonly result: Promise<T>;
}

interface Held<T> extends Conversation<T> {
  done: boolean;
  value?: T;
  endedAt?: number;
}

/** One step of a conversation: its result, or a round to answer `input_required`. */
export type Step<T> =
  | { readonly value: T }
  | { readonly inputRequired: Record<string, unknown> };

const INVALID_PARAMS = -32602;
/** How long an ended call's state still answers its result, for a client that comes back late. */
const KEEP_ENDED_MS = 60_000;

/**
 * The conversations of one endpoint, by the `requestState` each round was answered with.
 *
 * @category sluice serve
 */
export class InputRounds {
  readonly #held = new Map<string, Held<unknown>>();

  /**
   * Waits until the call ends or asks for input; answers its result, or the round (and holds
   * the call under a fresh state).
   *
   * @param conversation the call and its waiting requests
   * @param state the round's state, when the client sent one
   */
  async step<T>(conversation: Conversation<T>, state?: string): Promise<Step<T>> {
    this.#sweep();
    const held: Held<T> = this.#held.get(state ?? "") as Held<T> | undefined ??
      { ...conversation, done: false };
    if (state === undefined) {
      held.result.then((value) => {
        held.done = true;
        held.value = value;
        held.endedAt = Date.now();
      }, () => {
        held.done = true;
        held.endedAt = Date.now();
      });
    }
    await Promise.race([held.result.catch(() => undefined), held.inputs.next()]);
    // A result that came with the last answer wins over no request.
    await Promise.resolve();
    if (held.done || held.inputs.size === 0) {
      if (state !== undefined) this.#held.delete(state);
      return { value: await held.result };
    }
    const next = state ?? crypto.randomUUID();
    this.#held.set(next, held as Held<unknown>);
    return {
      inputRequired: {
        resultType: "input_required",
        inputRequests: held.inputs.requests(),
        requestState: next,
      },
    };
  }

  /**
   * The conversation a client's `requestState` names, with its `inputResponses` handed to the
   * waiting requests; the protocol's invalid-params error when the state is not one this
   * endpoint gave that client (or its call ended long ago).
   *
   * @param client the client's name
   * @param state the `requestState` the client sent
   * @param responses its `inputResponses`
   */
  resume<T>(client: string, state: unknown, responses: unknown): Conversation<T> {
    this.#sweep();
    const held = typeof state === "string" ? this.#held.get(state) : undefined;
    if (held === undefined || held.client !== client) {
      throw new serverSdk.ProtocolError(
        INVALID_PARAMS,
        "tools/call: requestState names no call of this client in flight here",
      );
    }
    held.inputs.answer(responses);
    return held as Held<T>;
  }

  /**
   * Forgets the state `state` (its call continues elsewhere: a task).
   *
   * @param state a state `step` answered
   */
  forget(state: string): void {
    this.#held.delete(state);
  }

  #sweep(): void {
    const now = Date.now();
    for (const [state, held] of this.#held) {
      if (held.endedAt !== undefined && now - held.endedAt > KEEP_ENDED_MS) {
        this.#held.delete(state);
      }
    }
  }
}
