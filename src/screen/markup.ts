/**
 * Instruction markup and phrasing aimed at the model: instruction tags (`<important>`,
 * `<system>`, `<instructions>`, `[INST]`, `<|im_start|>`), "ignore previous instructions",
 * concealment from the user, and claims of authority or urgency. Sources: mcp-shield's rules,
 * Invariant Labs' tool-poisoning disclosure (`<IMPORTANT>`), MCPTox's templates.
 *
 * @module
 */
import type { ScreenCodeOf } from "./findings.ts";
import { CooccurrenceSet } from "./cooccurrence.ts";
import { PhraseSet, type Words } from "./phrases.ts";

/** Tag names that address a model (compared lowercase, `-` and `_` alike). */
const TAG_NAMES = new Set(
  "important system sys system_prompt systemprompt system_message instructions instruction ai_instructions assistant_instructions model_instructions hidden_instructions secret_instructions admin override directive directives critical urgent secret hidden im_start im_end inst"
    .split(" "),
);
/** Bracketed forms (`[INST]`, `[SYSTEM]`) of chat templates. */
const BRACKET_NAMES = new Set(["inst", "system", "sys", "system_prompt", "important"]);
const MAX_TAG = 64;

/** The two tag forms: the characters around a name, and the names it may have. */
const TAG_FORMS = [["<", ">", TAG_NAMES], ["[", "]", BRACKET_NAMES]] as const;

/**
 * Whether the text holds an instruction tag: `<name ...>`, `</name>`, `<<name>>`, `<|name|>`
 * or `[name]`, `[/name]`. Each `<` or `[` reads at most {@link MAX_TAG} characters on.
 */
function hasInstructionTag(text: string): boolean {
  for (const [open, close, names] of TAG_FORMS) {
    for (let at = text.indexOf(open); at >= 0; at = text.indexOf(open, at + 1)) {
      let index = at + 1;
      while (
        index < text.length && (text[index] === open || text[index] === "/" ||
          text[index] === "|" || text[index] === " ")
      ) index++;
      let name = "";
      while (index < text.length && name.length <= MAX_TAG) {
        const c = text[index];
        if (/[A-Za-z_-]/.test(c)) name += c === "-" ? "_" : c.toLowerCase();
        else break;
        index++;
      }
      // `<admin-note>`, `<system_reminder>`: the name's first part is enough.
      if (!names.has(name) && !names.has(name.split("_")[0])) continue;
      // The tag ends at `close` within a few characters (attributes, `|`, `/`).
      const end = text.indexOf(close, index);
      if (end >= 0 && end - index <= MAX_TAG && !text.slice(index, end).includes(open)) return true;
    }
  }
  return false;
}

const SETS = {
  user: ["user", "users", "human", "humans", "person", "operator", "owner", "client", "customer"],
  tell:
    "tell mention show reveal inform notify alert disclose display explain surface expose report say admit warn"
      .split(" "),
  telling:
    "telling informing notifying alerting asking showing letting bothering mentioning warning revealing disclosing"
      .split(" "),
  not: ["not", "never", "dont", "doesnt", "shouldnt", "mustnt", "cannot", "cant", "wont"],
  instructions:
    "instructions instruction directions rules rule prompts prompt guidelines guidance messages constraints policies directives commands orders context"
      .split(" "),
  earlier:
    "previous prior above earlier preceding former original existing system other all safety developer"
      .split(" "),
  ai:
    "ai ais llm llms model models assistant assistants agent agents claude gpt chatgpt gemini copilot bot language"
      .split(" "),
  covertly: "silently secretly covertly quietly invisibly discreetly surreptitiously stealthily"
    .split(" "),
};

const RULES: readonly (readonly [string, ScreenCodeOf<"markup">])[] = [
  // Override: "ignore all previous instructions", "disregard the system prompt".
  [
    "ignore|disregard|forget|override|bypass|discard|overrule _3 $earlier $instructions",
    "screen_markup_override_phrase",
  ],
  [
    "ignore|disregard|forget everything|anything|all [that|you] [was|were|have|been] [said|told|written|read|given] above|before|previously|earlier|so",
    "screen_markup_override_phrase",
  ],
  ["do not|never follow|obey _2 $earlier $instructions", "screen_markup_override_phrase"],
  // Concealment.
  ["$not [ever|to|be] $tell _3 $user", "screen_markup_concealment"],
  ["$not [ever|to|be] $tell _4 to|with [the|your|any] $user", "screen_markup_concealment"],
  ["without|avoid $telling _3 $user", "screen_markup_concealment"],
  ["hide|conceal|withhold|keep _4 from [the|your|any] $user", "screen_markup_concealment"],
  [
    "keep|kept|remain this|it|these|that|them [a|completely|strictly|totally] secret|hidden|confidential|invisible",
    "screen_markup_concealment",
  ],
  [
    "$user _2 $not _2 know|see|notice|learn|suspect|realize|realise|find|aware",
    "screen_markup_concealment",
  ],
  [
    "$covertly _2 send|include|add|append|copy|forward|read|call|upload|attach|pass|transmit|exfiltrate|post|share|collect|gather|insert|embed|bcc|cc|log|record|save|store|write|use|run|execute|change|replace|modify|redirect",
    "screen_markup_concealment",
  ],
  // Authority or urgency aimed at the model.
  ["you are now|no", "screen_markup_urgency"],
  ["from now on", "screen_markup_urgency"],
  [
    "new|updated|revised|real|actual|true|secret|hidden|overriding [system|core|primary] instructions|directives|orders|mission",
    "screen_markup_urgency",
  ],
  [
    "this|these|following instruction|instructions|message|note|rule|rules|directive|directives override|overrides|supersede|supersedes|replace|replaces|outrank|outranks",
    "screen_markup_urgency",
  ],
  [
    "this|these|following instruction|instructions|message|note|rule|rules|directive|directives take|takes|have|has precedence|priority",
    "screen_markup_urgency",
  ],
  [
    "system|admin|administrator|emergency|security|priority|critical|root|developer override|overrides|command|directive",
    "screen_markup_urgency",
  ],
  [
    "system|admin|administrator|developer|god|debug|jailbreak|unrestricted mode enabled|activated|on|engaged",
    "screen_markup_urgency",
  ],
  ["$ai must|should|shall|needs|has _3 always|first|immediately|also", "screen_markup_urgency"],
  ["will|would crash|explode|self|implode|corrupt|wipe|brick", "screen_markup_urgency"],
  [
    "data|files|work|information|account will|would be lost|destroyed|wiped|corrupted|leaked|compromised",
    "screen_markup_urgency",
  ],
  [
    "$not _2 ask|asking|request|requesting|seek|seeking|wait|waiting _3 confirmation|permission|approval|consent",
    "screen_markup_urgency",
  ],
  [
    "without asking|requesting|seeking|waiting _3 confirmation|permission|approval|consent",
    "screen_markup_urgency",
  ],
];

const PHRASES = new PhraseSet(RULES, SETS);

/**
 * Rewordings the phrases miss: word sets that together, in one sentence and in any order, say
 * the same thing ("the guidance you were given earlier no longer applies").
 */
const TOGETHER: readonly (readonly [string, ScreenCodeOf<"markup">])[] = [
  [
    "$instructions|guidance|guidelines|restrictions|safeguards + earlier|previous|prior|above|original|old|existing|safety|system|any|all + ignore|disregard|forget|void|obsolete|override|overridden|supersede|superseded|aside|cancel|cancelled|revoke|revoked|invalid|longer|lifted|suspended",
    "screen_markup_override_phrase",
  ],
  [
    "$user|anyone|anybody|nobody + not|never|no|without|hide|conceal|quietly|secretly|silently|omit + tell|know|mention|show|repeat|reveal|inform|notify|aware|notice|bring|disclose|see",
    "screen_markup_concealment",
  ],
  [
    "not|never|leave|omit|exclude + reply|response|answer|summary + mention|bring|repeat|reveal|out",
    "screen_markup_concealment",
  ],
  [
    "authorised|authorized|granted|escalated|elevated + privileges|privilege|skip|bypass|unrestricted",
    "screen_markup_urgency",
  ],
  [
    "priority|urgent|mandatory|critical|immediately|emergency|attention + notice|note|message|instruction|instructions|directive|order + $ai",
    "screen_markup_urgency",
  ],
];

const TOGETHER_SET = new CooccurrenceSet(TOGETHER, SETS);

/** A Markdown heading that addresses the model: `### SYSTEM`, `# Instructions`. */
function hasInstructionHeading(text: string): boolean {
  for (let at = text.indexOf("#"); at >= 0; at = text.indexOf("#", at + 1)) {
    if (at > 0 && text[at - 1] !== "\n") continue;
    let index = at;
    while (text[index] === "#" && index - at < 6) index++;
    if (text[index] !== " ") continue;
    const name = /^ ([A-Za-z_]{1,30})/.exec(text.slice(index, index + 32))?.[1]?.toLowerCase();
    if (name !== undefined && HEADING_NAMES.has(name)) return true;
  }
  return false;
}
const HEADING_NAMES = new Set("system important instructions admin override".split(" "));

/** The codes of a string with no markup: one array, never written. */
const NO_CODES: readonly ScreenCodeOf<"markup">[] = Object.freeze([]);

/**
 * The markup codes of one string, each once (an empty array shared by every string with none).
 *
 * @param text the string
 * @param words its words (`readWords`)
 */
export function markupCodes(text: string, words: Words): readonly ScreenCodeOf<"markup">[] {
  const tagged = ((text.includes("<") || text.includes("[")) && hasInstructionTag(text)) ||
    (text.includes("#") && hasInstructionHeading(text));
  const phrases = PHRASES.match(words);
  const together = TOGETHER_SET.match(words);
  if (!tagged && phrases.length === 0 && together.length === 0) return NO_CODES;
  const codes: ScreenCodeOf<"markup">[] = tagged ? ["screen_markup_instruction_tag"] : [];
  codes.push(...phrases);
  for (const code of together) if (!codes.includes(code)) codes.push(code);
  return codes;
}
