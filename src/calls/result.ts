import { codeOf } from "../codes.ts";
import {
  type CanonicalForm,
  canonicalForm,
  isRecord,
  type JsonValue,
  utf8Length,
} from "../identity/mod.ts";
import type { SchemaValidator } from "../schema/types.ts";
import { validateCanonical } from "../schema/compile.ts";
import type { ToolLimits } from "../catalog/limits.ts";
import { failure, type ToolEnvelope } from "./envelope.ts";
import { revealHidden } from "../screen/hidden.ts";

/**
 * What a tool's results do with hidden or deceptive text (the screen's `hidden` class):
 * `"refuse"` fails the call with `mcp_result_hidden_text`; `"reveal"` writes each such code
 * point as a visible escape (`\u{E0041}`) in text and structured content alike.
 *
 * @category Discovery and calls
 */
export type ResultScreen = "refuse" | "reveal";

/** `value` with every string (keys too) revealed, and whether anything was hidden. */
function revealed(value: JsonValue): { value: JsonValue; hidden: boolean } {
  let hidden = false;
  const walk = (node: JsonValue): JsonValue => {
    if (typeof node === "string") {
      const shown = revealHidden(node);
      if (shown === undefined) return node;
      hidden = true;
      return shown;
    }
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== "object") return node;
    const out: Record<string, JsonValue> = {};
    for (const [key, item] of Object.entries(node)) out[walk(key) as string] = walk(item);
    return out;
  };
  return { value: walk(value), hidden };
}

/**
 * Checks one raw `tools/call` result against the tool's entry and turns it into an envelope.
 * Order matters: an `input_required` result first, then `isError` (its content is never read), then task results and content
 * kinds, then budgets, then the output schema. The returned values are detached copies.
 *
 * @param raw the result object exactly as the session returned it
 * @param validateOutput the compiled output schema validator, or `null` when the tool has none
 * @param limits the catalog's limits
 * @param screen what hidden text in the result does, after every other check (absent: nothing)
 *
 * @category Discovery and calls
 */
export function checkCallResult(
  raw: unknown,
  validateOutput: SchemaValidator | null,
  limits: ToolLimits,
  screen?: ResultScreen,
): ToolEnvelope {
  if (!isRecord(raw)) return failure("mcp_protocol_error");
  // The server needs more input (2026-07-28 multi round-trip) that sluice cannot give.
  if (raw.resultType === "input_required") return failure("mcp_input_required_unsupported");
  if (raw.isError === true) return failure("mcp_tool_error");
  if (raw.isError !== undefined && raw.isError !== false) return failure("mcp_result_invalid");
  // A task handle instead of a result: sluice never runs task-augmented calls.
  if ("task" in raw) return failure("mcp_result_unsupported");
  const content = raw.content;
  if (!Array.isArray(content)) return failure("mcp_result_invalid");
  if (content.length > limits.maxContentBlocks) return failure("mcp_result_too_large");
  const text: string[] = [];
  // UTF-16 length × 3 bounds the UTF-8 size; count exactly only when the bound is not enough.
  let upperBound = 0;
  for (const block of content) {
    if (!isRecord(block) || typeof block.type !== "string") return failure("mcp_result_invalid");
    // Images, audio, resource links, embedded resources and any future kind fail closed.
    if (block.type !== "text") return failure("mcp_result_unsupported");
    if (typeof block.text !== "string" || !block.text.isWellFormed()) {
      return failure("mcp_result_invalid");
    }
    upperBound += block.text.length * 3;
    text.push(block.text);
  }
  let bytes = upperBound;
  if (upperBound > limits.maxResultBytes || raw.structuredContent !== undefined) {
    bytes = 0;
    for (const item of text) bytes += utf8Length(item);
    if (bytes > limits.maxResultBytes) return failure("mcp_result_too_large");
  }
  let structured: JsonValue | null = null;
  let form: CanonicalForm | undefined;
  if (raw.structuredContent !== undefined) {
    try {
      form = canonicalForm(raw.structuredContent, {
        maxBytes: limits.maxResultBytes - bytes,
      });
    } catch (error) {
      const code = codeOf(error);
      return failure(code === "json_too_large" ? "mcp_result_too_large" : "mcp_result_invalid");
    }
    structured = JSON.parse(form.text) as JsonValue;
  }
  if (validateOutput) {
    // An advertised output schema needs real structured content; JSON-looking text never counts.
    if (form === undefined || !validateCanonical(validateOutput, structured!, form).valid) {
      return failure("mcp_result_invalid");
    }
  }
  if (screen === undefined) return { text, structured };
  // The schema judged what the server sent; the screen then decides what the model reads.
  const shown = revealed({ text, structured } as unknown as JsonValue);
  if (!shown.hidden) return { text, structured };
  if (screen === "refuse") return failure("mcp_result_hidden_text");
  return shown.value as unknown as ToolEnvelope;
}
