/**
 * The guard of semantic cache hits: two questions close in meaning may still ask for different
 * answers when they differ in a number, a name or a negation ("refund order 1041" / "refund order
 * 1042", "deploy to Frankfurt" / "deploy to Dublin", "why does it work" / "why does it not work").
 * Sentence embeddings place such pairs very close, so a near-duplicate may only share an answer
 * when these specifics agree.
 */

const NUMBER_WORDS = new Map(
  "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million billion"
    .split(" ")
    .map((word, i) => [word, `#${word}${i}`]),
);
const ORDINALS = new Map(
  "first second third fourth fifth sixth seventh eighth ninth tenth last".split(" ").map((word) => [word, `#${word}`]),
);
const NEGATIONS = new Set("not no never none nothing nobody nowhere neither nor without cannot cant dont doesnt didnt isnt arent wasnt werent wont wouldnt shouldnt couldnt hasnt havent hadnt mustnt".split(" "));
/** Capitalised words that open a question or request without naming anything (question words, auxiliaries, imperatives). */
const OPENERS = new Set(
  "how what why when where who whom whose which is are was were am do does did can could should would will shall may might must has have had please tell show give list explain describe find get summarise summarize compare translate convert write create make send book set restart recommend help calculate define generate draft check fix add remove delete update open close run stop start install deploy upgrade suggest provide share compute build i my we our you your the a an in on at for of to from with by and or but if hi hello hey ok okay so".split(
    " ",
  ),
);

/** The specifics of a question: numbers, names and identifiers, and whether it is negated. */
export interface QuestionSpecifics {
  /** Numbers (digits, number words, ordinals) in order of appearance, normalised. */
  numbers: string[];
  /** Names and identifiers, lower-cased, sorted, distinct. */
  names: string[];
  /** True when the question holds an odd number of negations. */
  negated: boolean;
}

/** Extracts the {@link QuestionSpecifics} of a question. */
export function questionSpecifics(question: string): QuestionSpecifics {
  const numbers: string[] = [];
  const names = new Set<string>();
  let negations = 0;
  for (const quoted of question.matchAll(/(?:^|[\s(])["'`“‘]([^"'`”’\n]{1,80})["'`”’](?=$|[\s).,!?;:])/gu)) names.add(quoted[1]!.trim().toLowerCase());
  // Sentence starts: the first word and each word after . ! ? : or a line break.
  const tokens = question.split(/\s+/u).filter(Boolean);
  let sentenceStart = true;
  for (const token of tokens) {
    const word = token.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
    const atStart = sentenceStart;
    sentenceStart = /[.!?:]$/u.test(token);
    if (word.length === 0) continue;
    const lower = word.toLowerCase();
    const bare = lower.replace(/['’]/gu, "");
    if (NEGATIONS.has(bare) || /n['’]t$/u.test(lower)) negations += 1;
    for (const digits of word.matchAll(/\p{N}+(?:[.,]\p{N}+)*/gu)) numbers.push(digits[0].replace(/,/gu, ""));
    const spelled = NUMBER_WORDS.get(lower) ?? ORDINALS.get(lower);
    if (spelled) numbers.push(spelled);
    const identifier = /\p{N}/u.test(word) && /\p{L}/u.test(word) ? true : /[_./@#-]/u.test(word.slice(1)) || /\p{Ll}\p{Lu}/u.test(word) || (word.length > 1 && word === word.toUpperCase() && /\p{Lu}/u.test(word));
    const capitalised = /^\p{Lu}/u.test(word) && !(atStart && OPENERS.has(lower.split(/['’]/u)[0]!)) && lower !== "i" && !/^i['’]/u.test(lower);
    if (identifier || capitalised) names.add(lower);
  }
  return { numbers, names: [...names].sort(), negated: negations % 2 === 1 };
}

/**
 * True when two questions agree on their specifics (same numbers in the same order, same names and
 * identifiers, same negation): only then may a semantic cache hit serve one the other's answer.
 *
 * @example
 * ```ts
 * questionsAgree("What is the status of order 1041?", "status of order 1041, please"); // true
 * questionsAgree("What is the status of order 1041?", "What is the status of order 1042?"); // false
 * ```
 */
export function questionsAgree(a: string, b: string): boolean {
  const x = questionSpecifics(a);
  const y = questionSpecifics(b);
  return x.negated === y.negated && x.numbers.join("|") === y.numbers.join("|") && x.names.join("|") === y.names.join("|");
}
