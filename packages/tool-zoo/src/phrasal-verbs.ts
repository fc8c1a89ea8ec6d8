/**
 * Phrasal verbs and verb idioms read as the one-word verb they mean ("get rid of the repo" → "delete the repo", "take
 * the files back out" → "remove the files back"), for the keyword query and the operation signals: their own words
 * ("get", "take", "up") say nothing of the operation or say the wrong one ("get" reads). General English: each entry is
 * a multi-word lemma of WordNet 3.1 (Princeton University, https://wordnet.princeton.edu/) glossed by, or in one
 * synset with, the verb it becomes (`get_rid_of` ~ "dispose", `keep_in_mind` ~ "remember", `bring_up_to_date` ~
 * "update", `look_up` ~ "search", `hand_over` ~ "give, transfer", `let_know` ~ "inform"); nothing taken from a task set or a catalog.
 */

/** A phrasal verb: its verb's forms, the words between the verb and its particle, its particle, and its meaning. */
interface PhrasalVerb {
  readonly verb: readonly string[];
  /** The particle (or the rest of the idiom), e.g. `rid of`, `in mind`, `up to date`. */
  readonly particle: string;
  /** What it means: a verb of the operation vocabulary. */
  readonly meaning: string;
  /** Transitive and separable: the object may stand between verb and particle ("take the files out"). */
  readonly separable?: boolean;
  /** Objects with which the phrase means something else ("let me know" asks the assistant to answer). */
  readonly notWith?: readonly string[];
}

const forms = (base: string, ...irregular: string[]): string[] => {
  const stem = base.endsWith("e") ? base.slice(0, -1) : /[^aeiou][aeiou][bdgkmnpt]$/.test(base) ? base + base.at(-1) : base;
  return [base, `${base}s`, `${stem}ing`, `${stem}ed`, ...irregular];
};

const GET = forms("get", "got", "gotten", "getting");
const TAKE = forms("take", "took", "taken");
const KEEP = forms("keep", "kept");
const BEAR = forms("bear", "bore", "borne");
const BRING = forms("bring", "brought");
const THROW = forms("throw", "threw", "thrown");
const SET = forms("set", "setting");
const SHUT = forms("shut", "shutting");
const WRITE = forms("write", "wrote", "written");
const FIND = forms("find", "found");
const TEAR = forms("tear", "tore", "torn");
const SPIN = forms("spin", "spun", "spinning");

/** The phrasal verbs, longest idioms of a verb first. */
const PHRASAL_VERBS: readonly PhrasalVerb[] = [
  { verb: GET, particle: "rid of", meaning: "delete" },
  { verb: forms("do", "did", "done", "does"), particle: "away with", meaning: "delete" },
  { verb: THROW, particle: "away", meaning: "delete", separable: true },
  { verb: THROW, particle: "out", meaning: "delete", separable: true },
  { verb: forms("wipe"), particle: "out", meaning: "delete", separable: true },
  { verb: forms("clean"), particle: "up", meaning: "delete", separable: true },
  { verb: TEAR, particle: "down", meaning: "delete", separable: true },
  { verb: TAKE, particle: "out", meaning: "remove", separable: true },
  { verb: forms("kick"), particle: "out", meaning: "remove", separable: true },
  { verb: forms("cross"), particle: "off", meaning: "remove", separable: true },
  { verb: KEEP, particle: "in mind", meaning: "remember" },
  { verb: BEAR, particle: "in mind", meaning: "remember" },
  { verb: forms("note"), particle: "down", meaning: "note", separable: true },
  { verb: WRITE, particle: "down", meaning: "note", separable: true },
  { verb: forms("jot"), particle: "down", meaning: "note", separable: true },
  { verb: forms("look"), particle: "up", meaning: "lookup", separable: true },
  { verb: FIND, particle: "out", meaning: "find" },
  { verb: forms("pull"), particle: "up", meaning: "show", separable: true },
  { verb: BRING, particle: "up to date", meaning: "update", separable: true },
  { verb: SET, particle: "up", meaning: "create", separable: true },
  { verb: SPIN, particle: "up", meaning: "create", separable: true },
  { verb: forms("hand"), particle: "over", meaning: "assign", separable: true },
  { verb: SHUT, particle: "down", meaning: "stop", separable: true },
  { verb: forms("turn"), particle: "off", meaning: "stop", separable: true },
  { verb: forms("call"), particle: "off", meaning: "cancel", separable: true },
  { verb: forms("roll"), particle: "back", meaning: "rollback undo", separable: true },
  { verb: forms("kick"), particle: "off", meaning: "start", separable: true },
  { verb: forms("carry", "carried", "carries"), particle: "out", meaning: "execute", separable: true },
  { verb: forms("fill"), particle: "in", meaning: "fill", separable: true },
  { verb: forms("fill"), particle: "out", meaning: "fill", separable: true },
  { verb: ["let", "lets", "letting"], particle: "know", meaning: "notify", separable: true, notWith: ["me", "us"] },
];

/** Words that may stand between a separable verb and its particle (its object): at most this many. */
const MAX_OBJECT_WORDS = 4;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const PATTERNS: ReadonlyArray<{ pattern: RegExp; meaning: string; separable: boolean; notWith: ReadonlySet<string> }> = PHRASAL_VERBS.map(({ verb, particle, meaning, separable, notWith }) => ({
  pattern: new RegExp(
    `\\b(?:${[...new Set(verb)].map(escape).join("|")})\\b(${separable ? `(?:[ \\t]+[^\\s.,;:!?]+){0,${MAX_OBJECT_WORDS}}?` : ""})[ \\t]+${particle.split(" ").map(escape).join("[ \\t]+")}\\b`,
    "gi",
  ),
  meaning,
  separable: separable ?? false,
  notWith: new Set(notWith),
}));

/**
 * The text with its phrasal verbs replaced by the verb they mean, the object of a separated one kept in place ("take
 * it all back out of the index" → "remove it all back of the index"). Linear in the text per pattern (bounded object).
 */
export function rewritePhrasalVerbs(text: string): string {
  if (text.length === 0) return text;
  let out = text;
  for (const { pattern, meaning, separable, notWith } of PATTERNS) {
    out = out.replace(pattern, (match: string, object: string | undefined) => {
      if (notWith.has(object?.trim().toLowerCase() ?? "")) return match;
      return separable && object ? `${meaning}${object}` : meaning;
    });
  }
  return out;
}
