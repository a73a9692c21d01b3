/**
 * Exfiltration shape: parameters whose name asks for the conversation, the model's context or
 * credentials, text asking the model to put those (or file contents) into an argument, and
 * sensitive paths. What the tool's own name says it is for is not flagged: a `set_secret` tool
 * may take a `secret`. Sources: Invariant Labs' `sidenote` parameter, mcp-shield's sensitive
 * paths and exfiltration parameters, CyberArk's full-schema poisoning (poisoned parameter names).
 *
 * @module
 */
import type { ExfiltrationFinding } from "./findings.ts";
import { CooccurrenceSet } from "./cooccurrence.ts";
import { FNV_OFFSET, fnvStep, PhraseSet, SENTENCE, wordIds, type Words } from "./phrases.ts";
import type { StringRole } from "./strings.ts";
import { hasSensitivePath } from "./paths.ts";

/** What a request asks for; a tool whose name is about it may ask. */
type Topic = "conversation" | "credentials" | "files";

/** Words of a tool's name that make a topic its purpose. */
const PURPOSE: Readonly<Record<Topic, ReadonlySet<string>>> = {
  conversation: new Set(
    "chat chats conversation conversations transcript transcripts memory history prompt prompts"
      .split(" "),
  ),
  credentials: new Set(
    "secret secrets password passwords key keys token tokens credential credentials auth login apikey env vault ssh cookie cookies"
      .split(" "),
  ),
  files: new Set(
    "file files read write edit fs upload document documents content contents directory directories download downloads attachment attachments drive blob media photo storage"
      .split(" "),
  ),
};

/**
 * Parameter names shaped to carry one topic out, compared by their letters and digits only
 * (`api_key`, `apiKey`, `API-KEY` and `apikey` are one name).
 */
const PARAMETERS: Readonly<Record<Topic, readonly string[]>> = {
  conversation:
    "conversation_history conversation_context conversation_log chat_history chat_log chat_context messages_so_far previous_messages prior_messages all_messages user_messages full_context context_window system_prompt system_instructions model_instructions prompt_history sidenote side_note"
      .split(" "),
  credentials:
    "credentials api_key apikey api_keys secret_key private_key ssh_key ssh_private_key access_token auth_token bearer_token session_token session_cookie cookies passwords env_vars environment_variables seed_phrase mnemonic id_rsa"
      .split(" "),
  files: "file_contents file_content config_file_contents".split(" "),
};

const SETS = {
  ask:
    "include pass provide send put paste add copy insert append attach supply dump share upload give transmit collect gather summarize summarise quote repeat forward leak exfiltrate extract"
      .split(" "),
  whole: ["entire", "full", "whole", "complete", "previous", "prior", "all", "every", "recent"],
  secret: "credentials credential password passwords secret secrets mnemonic".split(" "),
  keyed: ["api", "access", "private", "ssh", "secret", "auth", "bearer", "session", "refresh"],
  keys: ["key", "keys", "token", "tokens", "cookie"],
};

const RULES: readonly (readonly [string, Topic])[] = [
  [
    "$ask _3 conversation|chat|message|messages history|log|logs|transcript|context|so",
    "conversation",
  ],
  [
    "$ask _3 $whole conversation|conversations|chat|chats|messages|exchange|dialogue|dialog|context|transcript|history",
    "conversation",
  ],
  ["$ask _3 system|developer prompt|prompts|message|instructions", "conversation"],
  [
    "$ask _3 your|the|all [own] [system] instructions|prompt|context|memory|rules|guidelines",
    "conversation",
  ],
  [
    "$ask _3 previous|prior|earlier|preceding messages|turns|prompts|responses|requests|queries",
    "conversation",
  ],
  ["$ask _3 context window", "conversation"],
  [
    "$ask _3 descriptions|definitions|list|schemas of [the|all|any|other] [other] tools",
    "conversation",
  ],
  ["$ask _3 everything the user|you", "conversation"],
  ["$ask _3 $secret", "credentials"],
  ["$ask _3 $keyed $keys", "credentials"],
  ["$ask _3 environment variables|vars", "credentials"],
  ["$ask _3 env vars|variables|file", "credentials"],
  [
    "$ask _3 contents|content|text of _3 file|files|directory|home|config|configuration|dotfiles",
    "files",
  ],
  [
    "read|open|cat|load _2 contents|content [of] _2 ssh|env|credentials|config|keys|key|home",
    "files",
  ],
];

const PHRASES = new PhraseSet(RULES, SETS);

/** Rewordings: an ask, and what it asks for, close together in one sentence. */
const TOGETHER = new CooccurrenceSet<Topic>(
  [
    [
      "paste|put|add|include|insert|attach|append|copy|summary|summarize|summarise|dump|provide|pass|repeat|quote + messages|chat|conversation|discussed|transcript|history|instructions|prompt|said + last|previous|prior|earlier|far|entire|full|whole|everything|verbatim",
      "conversation",
    ],
    [
      "$ask|fill + ssh|aws|api|private|secret|access|openai|github|env|environment|signing + key|keys|token|tokens|password|credentials|variable|variables",
      "credentials",
    ],
    [
      "$ask|fill + contents|content|text + file|files|secrets|config|configuration|dotfile|dotfiles|env|ssh",
      "files",
    ],
  ] as const,
  SETS,
);

/** Words of a parameter name that, two together, make it a carrier (`debug_context`). */
const CARRIED = new Set(
  "context memory history conversation transcript prompt secrets credentials private secret"
    .split(" "),
);
const CARRYING = new Set("debug dump full all user raw entire whole complete private".split(" "));

/** What the screen knows of the tool's purpose: the words of its name and title. */
export type Purpose = ReadonlySet<string>;

/** The letters and digits of a name, lowercase (`apiKey` is `apikey`). */
const lettersOf = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, "");
const BY_LETTERS = new Map(
  (Object.entries(PARAMETERS) as [Topic, readonly string[]][]).flatMap(([topic, names]) =>
    names.map((name) => [lettersOf(name), topic] as const)
  ),
);
/**
 * The FNV-1a hash of the letters and digits of a printable-ASCII name, lowercase (what
 * {@link lettersOf} keeps, hashed without making it), or -1 for a name with another character
 * (whose lowercase may hold ASCII letters: the Kelvin sign's is `k`).
 */
function lettersHash(name: string): number {
  let hash = FNV_OFFSET;
  for (let at = 0; at < name.length; at++) {
    const code = name.charCodeAt(at);
    if (code > 0x7e) return -1;
    if (code >= 65 && code <= 90) hash = fnvStep(hash, code + 32);
    else if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57)) hash = fnvStep(hash, code);
  }
  return hash;
}
/** The {@link lettersHash} of every name of the table: a name whose hash is not here is none. */
const LETTERS_HASHES = new Set([...BY_LETTERS.keys()].map(lettersHash));

/** The topic a parameter name is shaped for by the table, read by its letters and digits. */
function tableTopic(name: string): Topic | undefined {
  const hash = lettersHash(name);
  // Most names are printable ASCII and none of the table's: one pass, nothing made.
  if (hash !== -1 && !LETTERS_HASHES.has(hash)) return undefined;
  return BY_LETTERS.get(lettersOf(name));
}

/** No parameter name of the table is longer (with separators to spare). */
const MAX_PARAMETER = 48;

/** The ids ({@link wordIds}) of the words of both sets, and of those that carry credentials. */
const CARRIED_IDS = wordIds([...CARRIED]);
const CARRYING_IDS = wordIds([...CARRYING]);
const CREDENTIAL_IDS = wordIds(["secrets", "credentials", "secret", "private"]);

/**
 * A name of two words, one for what is carried and one for how much (`memory_dump`), read from
 * the name's word ids (`readWords`; the words between sentence ends, which a name rarely has).
 */
function carrierTopic(words: Words): Topic | undefined {
  let count = 0;
  let carried: number | undefined;
  for (let at = 0; at < words.count; at++) {
    const id = words.ids[at];
    if (id === SENTENCE) continue;
    count++;
    if (carried === undefined && CARRIED_IDS.has(id)) carried = id;
  }
  if (count < 2 || count > 4 || carried === undefined) return undefined;
  let how = false;
  for (let at = 0; at < words.count && !how; at++) {
    const id = words.ids[at];
    how = id !== SENTENCE && CARRYING_IDS.has(id) && id !== carried;
  }
  if (!how) return undefined;
  return CREDENTIAL_IDS.has(carried) ? "credentials" : "conversation";
}

/** What one string says, before the tool's purpose is known. */
export interface ExfiltrationMarks {
  /** For a key: the topic its name is shaped for. */
  readonly parameter?: Topic;
  /** The topics the string asks the model to pass. */
  readonly requests: readonly Topic[];
  /** Whether it names a sensitive path. */
  readonly path: boolean;
}

/** What a string with nothing of exfiltration says: one object, never written. */
const NO_MARKS: ExfiltrationMarks = Object.freeze({ requests: Object.freeze([]), path: false });

/**
 * What one string says of exfiltration, independent of where it is and of the tool.
 *
 * @param text the string
 * @param words its words (`readWords`)
 * @param role what the string is
 */
export function exfiltrationMarks(
  text: string,
  words: Words,
  role: StringRole,
): ExfiltrationMarks {
  const parameter = role === "key" && text.length <= MAX_PARAMETER
    ? tableTopic(text) ?? carrierTopic(words)
    : undefined;
  const phrases = PHRASES.match(words);
  const together = TOGETHER.match(words);
  const path = hasSensitivePath(text);
  if (parameter === undefined && phrases.length === 0 && together.length === 0 && !path) {
    return NO_MARKS;
  }
  return {
    ...(parameter === undefined ? {} : { parameter }),
    requests: [...new Set([...phrases, ...together])],
    path,
  };
}

/** An exfiltration finding before it is placed (no pointer yet). */
export type ExfiltrationMark = Omit<ExfiltrationFinding, "pointer" | "on">;

/**
 * The exfiltration findings of one string, given the tool's purpose and where the string is.
 *
 * @param marks what the string says
 * @param purpose the words of the tool's name and title
 * @param propertyType for a key, the `type` of its property (a boolean or number carries
 *   nothing out)
 * @param pointer where it is
 */
export function exfiltrationFindings(
  marks: ExfiltrationMarks,
  purpose: Purpose,
  propertyType: unknown,
  pointer: string,
): ExfiltrationMark[] {
  const found: ExfiltrationMark[] = [];
  const unrelated = (topic: Topic) => ![...purpose].some((word) => PURPOSE[topic].has(word));
  // A definition under `$defs` is the server's data model (a Graph `messageHistory`), not a
  // parameter the model is asked to fill by name.
  // A boolean or number carries nothing out; a string, array or object (or no type) can.
  const types = Array.isArray(propertyType) ? propertyType : [propertyType];
  const carries = types.some((type) =>
    type === undefined || type === "string" || type === "array" || type === "object"
  );
  if (
    marks.parameter !== undefined && carries && unrelated(marks.parameter) &&
    !pointer.includes("/$defs/") && !pointer.includes("/definitions/")
  ) found.push({ class: "exfiltration", code: "screen_exfiltration_parameter" });
  if (marks.requests.some(unrelated)) {
    found.push({ class: "exfiltration", code: "screen_exfiltration_request" });
  }
  if (marks.path) found.push({ class: "exfiltration", code: "screen_exfiltration_sensitive_path" });
  return found;
}
