import { MAX_MATCH_CHARACTERS, foldText, foldedWords, splitWords } from "./text-normalization.js";

/** A sparse feature vector: parallel arrays of indices and values. */
export interface SparseVector {
  indices: Int32Array;
  values: Float32Array;
}

/** Settings of {@link lexicalFeatures}. */
export interface LexicalFeatureOptions {
  /** Number of hash buckets is `2 ** hashBits`. @default 14 */
  hashBits?: number;
  /** Character n-gram lengths taken inside words. @default [3, 4, 5] */
  charNgrams?: readonly number[];
  /** Weight of one character n-gram relative to a word. @default 0.3 */
  charWeight?: number;
  /** Language-independent concept features (e.g. from the cue lexicon), added as `k:<name>`. */
  concepts?: readonly string[];
  /** Weight of one concept relative to a word. @default 1 */
  conceptWeight?: number;
}

/** Weight of one speech-act cue (mood, narration, sharing, entitlement, laughter: see the package README) relative to a word. */
const SPEECH_ACT_WEIGHT = 1.5;

/** Word sequences (accent-folded, split like {@link splitWords}) that mark one speech-act cue, in en/es/fr/de/pt (a few it/nl). */
const SPEECH_ACT_CUES: Record<string, string> = {
  // asking for help or for something to be done
  request:
    "help me|can you|could you|would you|will you|please|pls|plz|how do i|how can i|how should i|how to|i need|we need|i want to|show me|tell me|give me|explain|is there a way|" +
    "ayudame|ayudeme|puedes|podrias|puede usted|por favor|como puedo|como hago|necesito|necesitamos|muestrame|dime|explica|explicame|" +
    "aide moi|aidez moi|peux tu|pouvez vous|pourrais tu|pourriez vous|s il te plait|s il vous plait|stp|svp|comment puis je|comment faire|j ai besoin|nous avons besoin|montre moi|dis moi|explique|" +
    "hilf mir|helfen sie|kannst du|konnen sie|konntest du|konnten sie|bitte|wie kann ich|wie mache ich|ich brauche|wir brauchen|zeig mir|sag mir|erklar|erklare|" +
    "me ajuda|me ajude|ajude me|ajuda me|voce pode|pode me|poderia|como posso|como faco|preciso|precisamos|me mostre|me diga|explique|" +
    "aiutami|puoi|potresti|per favore|come posso|ho bisogno|help mij|kun je|kunt u|hoe kan ik|ik heb nodig",
  // laughter and light-hearted markers
  laugh: "lol|lmao|rofl|haha|hahaha|hehe|hihi|jaja|jajaja|jeje|kkk|kkkk|rsrs|mdr|ptdr|xd|xdd|jk",
  // telling of one's day: time words of a narration
  today:
    "today|yesterday|tonight|this morning|this afternoon|last night|this week|finally|just|" +
    "hoy|ayer|esta manana|anoche|esta semana|por fin|finalmente|acabo de|" +
    "aujourd hui|hier|ce matin|ce soir|cette semaine|enfin|finalement|je viens de|" +
    "heute|gestern|heute morgen|diese woche|endlich|gerade|" +
    "hoje|ontem|esta manha|esta semana|finalmente|acabei de|oggi|ieri|finalmente|vandaag|gisteren|eindelijk",
  // past tense of common verbs (regular English -ed forms are found by their ending)
  past:
    "was|were|got|went|had|did|made|came|wrote|ran|built|broke|found|finished|shipped|managed|passed|" +
    "fue|estuvo|tuve|hice|logre|termine|consegui|" +
    "j ai|nous avons|etait|j etais|" +
    "habe|hab|war|hatte|" +
    "fui|tive|fiz|terminei",
  // sharing a feeling
  feel:
    "feeling|i feel|i m so|im so|so happy|so proud|proud|excited|stoked|yay|woohoo|hooray|awesome|amazing|" +
    "me siento|estoy feliz|orgulloso|orgullosa|contento|contenta|genial|" +
    "je me sens|trop content|fier|fiere|heureux|heureuse|genial|" +
    "ich fuhle mich|stolz|freue mich|gluecklich|glucklich|super|" +
    "me sinto|orgulhoso|orgulhosa|feliz|animado|animada",
  // first person singular
  me:
    "tengo|puedo|debo|necesito|quiero|estoy|soy|tenho|posso|devo|preciso|quero|estou|sou|" +
    "i|me|my|mine|myself|yo|mi|mis|je|j|moi|mon|ma|mes|ich|mich|mir|mein|meine|meinen|meinem|meiner|eu|meu|minha|meus|minhas|io|mio|mia|ik|mij|mijn",
  // a first-person question about what one may, gets or has to do
  entitle:
    "can i|may i|am i|do i|do i get|do we get|can we|are we|should i|do i have to|do we have to|is it ok if i|how many|how much|" +
    "puedo|podemos|tengo derecho|tenemos derecho|me corresponde|me corresponden|cuantos|cuantas|debo|tengo que|" +
    "puis je|je peux|peut on|ai je droit|avons nous droit|combien de|dois je|je dois|" +
    "darf ich|durfen wir|kann ich|bekomme ich|bekommen wir|habe ich anspruch|muss ich|wie viele|wie viel|" +
    "posso|podemos|tenho direito|temos direito|quantos|quantas|devo|tenho que",
  // first words that open a question even without a question mark
  asks:
    "what|why|how|when|where|who|which|whose|is|are|am|do|does|did|can|could|should|would|will|may|have|has|" +
    "que|por que|como|cuando|donde|quien|cual|cuantos|cuantas|cuanto|puedo|" +
    "quel|quelle|quels|pourquoi|comment|quand|ou|qui|combien|est ce|puis je|" +
    "was|warum|wieso|wie|wann|wo|wer|welche|welcher|kann|darf|ist|sind|gibt es|muss|" +
    "o que|quando|onde|quem|qual|quantos|quantas|posso|pode",
  // the speaker's organisation as context
  org:
    "our|at work|company|my employer|my job|the office|my manager|my boss|hr|" +
    "nuestra|nuestro|nuestros|nuestras|en el trabajo|la empresa|mi empresa|mi empleador|mi jefe|" +
    "notre|nos|au travail|l entreprise|mon employeur|mon entreprise|mon chef|" +
    "unser|unsere|unserer|unseren|bei der arbeit|in der firma|mein arbeitgeber|meine firma|mein chef|" +
    "nossa|nosso|nossos|nossas|no trabalho|na empresa|meu empregador|minha empresa|meu chefe",
};

const FIRST_PERSON_PLURAL = new Set(["we", "us", "nosotros", "nosotras", "nous", "on", "wir", "uns", "nos", "noi", "wij", "ons"]);
const ORG_HERE = /\b(?:here|aqui|ici|hier|qui)\s*(?:[?.!,;]|$)/;
const EMOTICON = /(?:^|\s)[:;=][-']?[)(dpo3\]\[|\\/*]|\p{Extended_Pictographic}/iu;

interface CompiledCues {
  byFirst: Map<string, { cue: string; words: string[] }[]>;
  /** Question openers, matched at the start of the question only. */
  opening: Map<string, string[][]>;
}

let compiledCues: CompiledCues | undefined;
function cues(): CompiledCues {
  if (compiledCues) return compiledCues;
  const byFirst = new Map<string, { cue: string; words: string[] }[]>();
  const opening = new Map<string, string[][]>();
  for (const [cue, forms] of Object.entries(SPEECH_ACT_CUES)) {
    for (const form of forms.split("|")) {
      const words = splitWords(foldText(form));
      if (words.length === 0) continue;
      if (cue === "asks") {
        opening.set(words[0]!, [...(opening.get(words[0]!) ?? []), words]);
        continue;
      }
      const list = byFirst.get(words[0]!) ?? [];
      list.push({ cue, words });
      byFirst.set(words[0]!, list);
    }
  }
  return (compiledCues = { byFirst, opening });
}

/**
 * Speech-act cues of a question, as language-independent feature names: punctuation (`question-mark`,
 * `exclaim`), laughter and emoticons (`laugh`), the first word (`start:<word>`), the mood
 * (`mood:ask`, `mood:request`, `mood:statement`), and conjunctions that tell a first-person
 * statement sharing news or a feeling (`narrate`, `share`) from a request for help, and a
 * first-person question about what one may or gets at one's organisation (`entitle-org`). They
 * carry no intent themselves: the model learns a weight for each.
 *
 * @example
 * ```ts
 * speechActs("finally fixed it today lol").includes("narrate"); // true
 * ```
 */
export function speechActs(text: string): string[] {
  const folded = foldText(text);
  return speechActsOf(text, folded, splitWords(folded));
}

/** {@link speechActs} on a question already folded and split (the feature path has both). */
function speechActsOf(text: string, folded: string, words: readonly string[]): string[] {
  const found = new Set<string>();
  const { byFirst, opening } = cues();
  for (let i = 0; i < words.length; i++) {
    const candidates = byFirst.get(words[i]!);
    if (candidates) {
      for (const { cue, words: phrase } of candidates) {
        let ok = i + phrase.length <= words.length;
        for (let j = 1; ok && j < phrase.length; j++) ok = words[i + j] === phrase[j];
        if (ok) found.add(cue);
      }
    }
    const word = words[i]!;
    if (word.length >= 5 && word.endsWith("ed") && !word.endsWith("eed")) found.add("past");
    if (FIRST_PERSON_PLURAL.has(word)) found.add("we");
  }
  if (ORG_HERE.test(folded)) found.add("org");
  const acts: string[] = [];
  const opener = opening.get(words[0] ?? "")?.some((phrase) => phrase.every((w, j) => words[j] === w)) ?? false;
  const questionMark = /[?¿]/.test(folded);
  const exclaim = /[!¡]/.test(folded);
  const question = opener || questionMark;
  if (questionMark) acts.push("question-mark");
  if (exclaim) acts.push("exclaim");
  const laugh = found.has("laugh") || EMOTICON.test(text.slice(0, MAX_MATCH_CHARACTERS));
  if (laugh) acts.push("laugh");
  if (words.length > 0) acts.push(`start:${words[0]!}`);
  const request = found.has("request");
  const mood = request ? "request" : question ? "ask" : "statement";
  acts.push(`mood:${mood}`);
  const me = found.has("me");
  if (me) acts.push(`me-${mood}`);
  for (const cue of ["today", "past", "feel", "org"]) if (found.has(cue)) acts.push(cue);
  if (mood === "statement" && me && (found.has("today") || found.has("past"))) acts.push("narrate");
  if (mood === "statement" && (laugh || found.has("feel") || exclaim)) acts.push("share");
  if (question && found.has("entitle") && (me || found.has("we"))) {
    acts.push("entitle");
    if (found.has("org")) acts.push("entitle-org");
  }
  return acts;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a of `text`, continuing from `hash` (so `fnv1a(b, fnv1a(a))` equals `fnv1a(a + b)`). */
function fnv1a(text: string, hash = FNV_OFFSET, from = 0, to = text.length): number {
  for (let i = from; i < to; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash;
}

const WORD_PREFIX = fnv1a("w:");
const BIGRAM_PREFIX = fnv1a("b:");
const CHAR_PREFIX = fnv1a("c:");
const SPACE = " ".charCodeAt(0);

/** Hashed bag of words, word bigrams and character n-grams of a question, with sublinear term frequency and unit length. */
export function lexicalFeatures(text: string, options: LexicalFeatureOptions = {}): SparseVector {
  const buckets = 2 ** (options.hashBits ?? 14);
  const charNgrams = options.charNgrams ?? [3, 4, 5];
  const charWeight = options.charWeight ?? 0.3;
  const counts = new Map<number, number>();
  // Features are hashed as the strings `w:<word>`, `b:<word> <next>`, `c:<n-gram>`, `k:<concept>`, `s:<act>`, without
  // building those strings (the hash runs over the characters in place).
  const addHash = (hash: number, weight: number) => {
    const index = (hash >>> 0) % buckets;
    counts.set(index, (counts.get(index) ?? 0) + weight);
  };
  const add = (feature: string, weight: number) => addHash(fnv1a(feature), weight);
  const { folded, words } = foldedWords(text);
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const wordHash = fnv1a(word, WORD_PREFIX);
    addHash(wordHash, 1);
    if (i + 1 < words.length) addHash(fnv1a(words[i + 1]!, Math.imul(fnv1a(word, BIGRAM_PREFIX) ^ SPACE, FNV_PRIME)), 1);
    if (charWeight > 0) {
      // The n-grams of ` word ` (padded with one space each side).
      const length = word.length + 2;
      for (const n of charNgrams) {
        for (let j = 0; j + n <= length; j++) {
          let hash = CHAR_PREFIX;
          for (let k = j; k < j + n; k++) {
            hash ^= k === 0 || k === length - 1 ? SPACE : word.charCodeAt(k - 1);
            hash = Math.imul(hash, FNV_PRIME);
          }
          addHash(hash, charWeight);
        }
      }
    }
  }
  const conceptWeight = options.conceptWeight ?? 1;
  if (options.concepts && conceptWeight > 0) for (const concept of options.concepts) add(`k:${concept}`, conceptWeight);
  for (const act of speechActsOf(text, folded, words)) add(`s:${act}`, SPEECH_ACT_WEIGHT);
  const indices = new Int32Array(counts.size);
  const values = new Float32Array(counts.size);
  let k = 0;
  let norm = 0;
  for (const [index, count] of counts) {
    const value = count > 1 ? 1 + Math.log(count) : count;
    indices[k] = index;
    values[k] = value;
    norm += value * value;
    k++;
  }
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let i = 0; i < values.length; i++) values[i] = values[i]! * scale;
  return { indices, values };
}
