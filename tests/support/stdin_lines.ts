/**
 * Line-oriented stdin for the child processes tests drive: each line read from stdin, in order,
 * and the command loop of the racing children built on it.
 *
 * @module
 */

/** Every line of stdin, without its newline, until the end of input. */
export async function* stdinLines(): AsyncGenerator<string> {
  let buffered = "";
  const decoder = new TextDecoder();
  for await (const chunk of Deno.stdin.readable) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      yield buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
    }
  }
}

/**
 * Prints `ready`, then hands each line read from stdin to `handle` and prints what it returns,
 * until the end of input.
 */
export async function answerLines(handle: (line: string) => Promise<string>): Promise<void> {
  const encoder = new TextEncoder();
  const say = (line: string) => Deno.stdout.write(encoder.encode(line + "\n"));
  await say("ready");
  for await (const line of stdinLines()) await say(await handle(line));
}
