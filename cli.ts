#!/usr/bin/env -S deno run -A
/**
 * The `sluice` command (`deno task sluice ...`; the npm package's `bin`): connects the CLI in
 * `src/cli/main.ts` to this process. Only `node:process` is used, so the same file runs on
 * Deno, Node and Bun.
 *
 * @module
 */
import process from "node:process";
import { runCli } from "./src/cli/main.ts";

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: (name) => process.env[name],
});
