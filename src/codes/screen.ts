/**
 * The `screen` stage of the code catalog (the poisoning screen of a tool's definition);
 * `src/codes.ts` assembles the stages.
 *
 * @module
 */
import type { StageCodes } from "./entry.ts";

/**
 * The `screen` stage's codes, each with its meaning: the part of {@link CODES} this stage writes.
 *
 * @category Errors
 */
export const SCREEN_CODES = {
  screen_hidden_tag_characters: {
    stage: "screen",
    meaning:
      "A string holds Unicode Tag characters (U+E0000-E007F) outside a well-formed emoji tag sequence: text a person cannot see and a model reads; the finding decodes it.",
  },
  screen_hidden_bidi_control: {
    stage: "screen",
    meaning:
      "A string holds a bidirectional control (U+202A-202E, U+2066-2069, U+200E, U+200F, U+061C) that reorders what a person sees.",
  },
  screen_hidden_invisible_character: {
    stage: "screen",
    meaning:
      "A string holds a control or format character that renders invisibly (zero-width, soft hyphen, a run of variation selectors, a C0 or C1 control).",
  },
  screen_hidden_terminal_escape: {
    stage: "screen",
    meaning:
      "A string holds an ANSI or terminal escape (ESC, or the C1 CSI, OSC, DCS, APC, PM, SOS).",
  },
  screen_hidden_homoglyph_name: {
    stage: "screen",
    meaning:
      "The tool's name differs from another allowed tool's name but looks the same (the same confusable skeleton).",
  },
  screen_hidden_confusable_name: {
    stage: "screen",
    meaning:
      "The tool's name holds a non-ASCII character that looks like an ASCII one (another script's lookalike, a fullwidth or mathematical form).",
  },
  screen_markup_instruction_tag: {
    stage: "screen",
    meaning:
      "A string holds an instruction tag aimed at the model (`<important>`, `<system>`, `<instructions>`, `[INST]`, `<|im_start|>`, ...).",
  },
  screen_markup_override_phrase: {
    stage: "screen",
    meaning:
      "A string tells the model to ignore, forget or override its previous or other instructions.",
  },
  screen_markup_concealment: {
    stage: "screen",
    meaning:
      "A string tells the model to hide something from the user (do not tell, mention or show the user; silently; keep it secret).",
  },
  screen_markup_urgency: {
    stage: "screen",
    meaning:
      "A string claims authority or urgency over the model (new instructions, a system or admin override, an urgent notice for the AI, a threat of a crash, no confirmation).",
  },
  screen_shadowing_tool_name: {
    stage: "screen",
    meaning: "A string names a tool of another server the host allows.",
  },
  screen_shadowing_server_name: {
    stage: "screen",
    meaning: "A string names another server the host connects to.",
  },
  screen_shadowing_instruction: {
    stage: "screen",
    meaning:
      "A string tells the model how to use other tools (when this tool is present, before or instead of any other tool, redirect or copy what they send).",
  },
  screen_exfiltration_parameter: {
    stage: "screen",
    meaning:
      "A parameter's name asks for the conversation, the model's context or instructions, or credentials, unrelated to the tool's name.",
  },
  screen_exfiltration_request: {
    stage: "screen",
    meaning:
      "A string asks the model to pass the conversation, its instructions, credentials or file contents as an argument, unrelated to the tool's name.",
  },
  screen_exfiltration_sensitive_path: {
    stage: "screen",
    meaning:
      "A string names a sensitive path or secret file (`~/.ssh`, `id_rsa`, `.env`, `.aws/credentials`, an MCP client's config, ...).",
  },
} as const satisfies StageCodes<"screen">;
