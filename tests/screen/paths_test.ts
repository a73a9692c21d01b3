/**
 * The sensitive-path matcher (`src/screen/paths.ts`) says what the one regular expression it
 * replaced said, on every string of the fixtures, on each literal in every case and place, and on
 * random strings made of the characters the literals are made of.
 */
import assert from "node:assert/strict";
import { hasSensitivePath, SENSITIVE_PATHS } from "../../src/screen/paths.ts";
import { visitStrings } from "../../src/screen/strings.ts";
import { labeledSet } from "../../fixtures/poisoning/labeled_set.ts";
import { firstParaphrases, heldOutSet } from "../../fixtures/poisoning/held_out.ts";
import { realServers } from "../../fixtures/poisoning/clean_set.ts";

/** The expression of the screen before the matcher (`e00a065`), the reference. */
const REFERENCE =
  /~\/\.ssh|\.ssh\/|id_rsa|id_ed25519|id_ecdsa|id_dsa|authorized_keys|\/etc\/passwd|\/etc\/shadow|\.aws\/credentials|\.aws\/config|\.npmrc|\.netrc|\.pypirc|\.git-credentials|\.kube\/config|\.docker\/config\.json|\.gnupg|mcp\.json|claude_desktop_config|\.bash_history|\.zsh_history|wallet\.dat|keychain|\.pgpass|\.env(?![a-z0-9_])/i;

function agrees(text: string): void {
  assert.equal(hasSensitivePath(text), REFERENCE.test(text), JSON.stringify(text));
}

Deno.test("sensitive paths: every string of the fixtures reads as the expression read it", () => {
  const tools = [
    ...[...labeledSet(), ...firstParaphrases(), ...heldOutSet()].map((entry) => entry.tool),
    ...realServers().flatMap((server) => server.tools),
  ];
  let strings = 0;
  let found = 0;
  for (const tool of tools) {
    visitStrings(tool as unknown as Record<string, unknown>, (text) => {
      strings++;
      if (REFERENCE.test(text)) found++;
      agrees(text);
    });
  }
  assert.ok(strings > 10_000 && found > 20, `${strings} strings, ${found} with a path`);
});

Deno.test("sensitive paths: each literal in any case, at any place, with any neighbour", () => {
  const neighbours = ["", " ", "a", "Z", "0", "_", "-", ".", "/", "~", "\u017f", "\u212a", "é"];
  for (const literal of [...SENSITIVE_PATHS, ".env"]) {
    const upper = literal.toUpperCase();
    const mixed = [...literal].map((c, i) => i % 2 ? c.toUpperCase() : c).join("");
    // Non-ASCII letters that a Unicode-aware comparison would fold to ASCII are not the literal.
    const lookalike = literal.replace("s", "\u017f").replace("k", "\u212a");
    const cut = literal.slice(0, -1);
    for (const form of [literal, upper, mixed, lookalike, cut]) {
      for (const before of neighbours) {
        for (const after of neighbours) agrees(`${before}${form}${after}`);
      }
    }
  }
});

Deno.test("sensitive paths: random strings of the literals' characters", () => {
  const alphabet = [..."~/._-asdhcenvkirtpwgjmoylzfbuADENVKS019 é\u017f"];
  let seed = 26;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const literals = [...SENSITIVE_PATHS, ".env"];
  let positive = 0;
  for (let round = 0; round < 20_000; round++) {
    let text = "";
    const length = Math.floor(random() * 24);
    while (text.length < length) {
      text += random() < 0.15
        ? literals[Math.floor(random() * literals.length)].slice(Math.floor(random() * 3))
        : alphabet[Math.floor(random() * alphabet.length)];
    }
    if (REFERENCE.test(text)) positive++;
    agrees(text);
  }
  assert.ok(positive > 1000, `${positive} random strings with a path`);
});
