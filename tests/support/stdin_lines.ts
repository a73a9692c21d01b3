/**
 * The command loop of the racing child processes: prints `ready`, then hands each line read from
 * stdin to `handle` and prints what it returns, until the end of input.
 *
 * @module
 */

/** Runs the loop; resolves at the end of input. */
export async function answerLines(handle: (line: string) => Promise<string>): Promise<void> {
  const encoder = new TextEncoder();
  const say = (line: string) => Deno.stdout.write(encoder.encode(line + "\n"));
  await say("ready");
  let buffered = "";
  const decoder = new TextDecoder();
  for await (const chunk of Deno.stdin.readable) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      await say(await handle(line));
    }
  }
}
