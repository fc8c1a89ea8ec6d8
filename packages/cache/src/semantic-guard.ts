import { stemmer } from "stemmer";

/**
 * The guard of semantic cache hits: near-duplicates (by embedding) share an answer only when they
 * agree on numbers, names (in any case) and negation.
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

/** Words that name nothing: determiners, pronouns, auxiliaries, prepositions, conjunctions, question words. */
const DETERMINERS = new Set("a an the this that these those my your our their his her its some any each every which what whose".split(" "));
const SUBJECTS = new Set("i you we they he she it".split(" "));
/** Words after which a differing word names something ("to bob", "does alice", "in paris", "and chelsea"). */
const NAMING_CUES = new Set(
  "of in on at to for from with by about into onto over under between among through during before after within across against toward towards via per as than and or nor is are was were be been am do does did have has had can could will would shall should may might must".split(" "),
);
const FUNCTION_WORDS = new Set([...DETERMINERS, ...SUBJECTS, ...NAMING_CUES, ..."me us them him how why when where who whom there here please so but if then not no also just very".split(" ")]);

interface Token {
  word: string;
  stem: string;
  content: boolean;
}

function tokens(question: string): Token[] {
  return (question.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'’_.@#-]*/gu) ?? []).map((raw) => {
    const word = raw.replace(/[.'’-]+$/u, "").replace(/['’]s$/u, "");
    const content = !FUNCTION_WORDS.has(word) && !/['’]/u.test(word) && !/^\p{N}+$/u.test(word);
    return { word, stem: content ? stemmer(word) : word, content };
  });
}

/** True when a content word at `i` stands where a name would (not a verb after its subject, nor a head noun after a determiner). */
function namingSlot(list: Token[], i: number, other: Token[], j: number): boolean {
  const before = list[i - 1];
  const after = list[i + 1];
  if (before !== undefined && SUBJECTS.has(before.word)) return false;
  if (before !== undefined && NAMING_CUES.has(before.word)) return true;
  // Otherwise only a word swapped in the same context counts: the same neighbours on both sides.
  if (before?.word !== other[j - 1]?.word || after?.word !== other[j + 1]?.word) return false;
  return after?.content === true;
}

/** True when each question holds a content word the other lacks, in the same naming slot ("what does bob like" / "what does alice like"). */
function swapsName(a: string, b: string): boolean {
  const x = tokens(a);
  const y = tokens(b);
  const onlyIn = (list: Token[], other: Token[]) => {
    const stems = new Set(other.map((t) => t.stem));
    return list.flatMap((t, i) => (t.content && !stems.has(t.stem) ? [i] : []));
  };
  const onlyX = onlyIn(x, y);
  const onlyY = onlyIn(y, x);
  return onlyX.some((i) => onlyY.some((j) => namingSlot(x, i, y, j) && namingSlot(y, j, x, i)));
}

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
 * True when two questions agree on their specifics (same numbers in the same order, same names and identifiers, same
 * negation, no lower-case name swapped for another): only then may a semantic cache hit serve one the other's answer.
 * @example
 * ```ts
 * questionsAgree("What is the status of order 1041?", "status of order 1041, please"); // true
 * questionsAgree("What is the status of order 1041?", "What is the status of order 1042?"); // false
 * ```
 */
export function questionsAgree(a: string, b: string): boolean {
  const x = questionSpecifics(a);
  const y = questionSpecifics(b);
  return x.negated === y.negated && x.numbers.join("|") === y.numbers.join("|") && x.names.join("|") === y.names.join("|") && !swapsName(a, b);
}
