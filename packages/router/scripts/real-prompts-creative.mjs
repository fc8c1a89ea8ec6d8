// Real creative-writing and conversation requests (sixth round, 2026-11-30): FlowGPT prompts people wrote for their own
// use and shared there, as collected in friuns2/BlackFriday-GPTs-Prompts (the fifth round's source, same pinned commit),
// chosen by the collection's own category pages, not by file name. Only the files of the CATEGORY_SECTIONS below that
// the fifth round had not read (their name does not match its FILE_NAMES), whose prompt is at most 4,000 characters and
// begins in English were eligible; of them every CREATIVE_STEP-th (writing sections) or LIFE_STEP-th (life-style
// sections) in page order was read (sampleFlowGptCategories), and each read prompt was labelled one by one by the
// labelling rules of data/DATA-SOURCES.md before any model ran on it (file name -> intent below; the files not listed
// are left out). Used by prepare-real-prompts.mjs.
import { FILE_NAMES, FLOWGPT, parseFlowGptFile } from "./real-prompts-structural.mjs";

/** Category page (`<page>.md` at the repository's root) -> the `## ` sections read, for creative writing. */
export const CREATIVE_SECTIONS = {
  Creative: ["story", "script", "music", "book"],
  Marketing: ["blog & content", "email marketing", "Social Media Marketing"],
  "Job-Hunting": ["cover letter"],
  "2024-May-Update": ["Writing"],
};
/** Category page -> the `## ` sections read, for everyday advice and knowledge (conversation). */
export const LIFE_SECTIONS = {
  "Productivity-&-life-style": ["Personal Growth", "Mental Health", "Financial Management", "Health & Fitness"],
  "2024-May-Update": ["Personal", "Relationship", "Health & Wellness", "Financial"],
};
/** Every how many eligible files of the writing sections one was read (127 of 1,014). */
export const CREATIVE_STEP = 8;
/** Every how many eligible files of the life-style sections one was read (88 of 438). */
export const LIFE_STEP = 5;
const MAX_CHARS = 4000;

/**
 * One-by-one labels (file name under gpts/, without .md). Left out of the 215 read: jailbreaks and sexual or harmful
 * content, role plays and games, interactive assistants or personas with no request of their own (they ask the user what
 * to do), prompt generators and other meta prompts, rewriting, editing and proofreading (resumes, e-mails, tweets),
 * copies of awesome-chatgpt-prompts prompts (stand-up comedian, Excel sheet, resume editor, cover letter writer,
 * doctor), near-copies (a second SEO article prompt), a prompt in Hindi, and requests that fit no intent clearly or
 * two equally (story outlines, content calendars, marketing strategies, a questionnaire, a skincare routine).
 */
export const CREATIVE_LABELS = {
  "creative-orientation": [
    "creative-writing-generator", "cr", "superhero-1392", "purple-prose-descriptive-text-creative-writing-intensity-scale",
    "you-are-a-writer-to-make-fictional-stories-and-help-suggest-ideas", "the-ancient-tabloids", "never-ending-horror-story",
    "converging-realities-a-post-agi-sci-fi-tale", "an-english-murder-village", "free-band-name-generator-210", "tune-tales",
    "make-a-sad-song-style-and-voice-to-depeche-mode", "music-60", "crowdwork-comedy",
    "converging-destinies-a-tapestry-of-interwoven-realities", "google-ads-ad-copy-generation", "facebook-ad-headline",
    "content-writer", "content-marketing-booster", "blog-post-intro-paragraph", "plan-an-instagram-reels-series",
    "pinterest-pin-title-and-description", "instagram-highlight-covers-advisor", "blogbuzz-brainstorming-blog-topics",
    "ap-article-creator", "copygenius-ad-copy-drafting", "tiktok-ad-copy-writer", "compose-a-quora-answer-1",
    "suggest-pinterest-pin-ideas", "linkedin-article-topics-advisor", "calvo-consulting", "article-seo-2000-mots",
    "algostacks-ai-industry-page", "viral-x-caption-generator",
    "create-a-social-media-campaign-to-promote-self-confidence-among-teenagers-write-a-captivating-caption-and-describe-an-accompanying-visual-or-video-element",
    "social-media-post-booster", "social-media-compelling-hook-generator", "youtube-12", "personalizing-email-content",
    "email-campaign", "drafting-email-to-your-customer-for-any-circumstances", "mailboost-monthly-email-newsletters",
    "influencer-collaboration-crafting-follow-up-messages", "link-building-email-campagin",
    "personal-job-recruitment-assistant", "resign-with-a-style", "build-your-cover-letter",
    "original-hiring-manager-message-generator", "write-an-informative-article-with-keywords", "youtube-script-creator",
    "the-only-chatgpt-prompt-you-need-to-create-a-rank-1-article-engage-inform-and-convert",
    "create-10-youtube-video-title-ideas", "1-click-ebook-writer-0", "crafting-captivating-email-subject-lines",
    "easy-email-replies", "create-compelling-calls-to-action-ctas-for-your-website",
    "the-first-30-seconds-transformative-video-hook-formulas", "affiliate-blog-post-article-generator", "poetry-in-motion",
  ],
  conversation: [
    "short-childrens-story-generator-for-marketing", "guitar-fingerpicking",
    "learn-the-concept-behind-any-topic-in-simple-language", "for-teacher-grow-your-students-mindset",
    "tell-me-the-features-of-pitta-prakruti", "parent-loss", "developing-healthy-habits", "eco-sage", "personal-finance",
    "daily-water-intake-calculator", "learn-a-topic-from-the-super-tutor", "personal-travel-advisor",
    "what-about-this-diet", "personalized-dining-selection-guide",
  ],
  "structural-thinking": [
    "blog-post-12", "grow-your-twitter-audience-1million-followers", "nlp-coach-become-a-better-version-of-yourself",
    "balanced-lifestylebuilding-healthy-habits", "professional-nutritionist", "fitnessgpt-v2-one-click-personal-trainer",
    "your-personal-ai-travel-agent", "get-fit-and-have-fun-with-calisthenics",
  ],
  "technical-analysis": ["be-a-wall-street-hero-with-a-tradingview-indicator-prompt"],
};
/** Every how many creative labels one is used (1: all of them). */
export const CREATIVE_LABEL_STEP = 1;

const STOP_WORDS = new Set(["the", "a", "you", "to", "and", "of", "i", "is", "in", "your", "for", "as", "an", "with", "me", "my", "are", "will", "be", "this", "that", "write", "please"]);
/**
 * Whether a prompt begins in English: at least three words in its first 300 characters, at least 15% of them common
 * English words, and no Cyrillic, Chinese, Japanese or Korean letters there.
 *
 * @param prompt - the prompt block's text.
 * @returns true when the prompt reads as English.
 */
export function beginsInEnglish(prompt) {
  const head = prompt.slice(0, 300);
  const words = head.toLowerCase().match(/[a-z]+/g) ?? [];
  if (words.length < 3 || /[\u0400-\u04ff\u4e00-\u9fff\u3040-\u30ff\uac00-\ud7af]/.test(head)) return false;
  return words.filter((w) => STOP_WORDS.has(w)).length / words.length >= 0.15;
}

/**
 * Lists the files of some sections of the collection's category pages, in page order, each once.
 *
 * @param pageText - page name -> the page's Markdown.
 * @param sections - page name -> the `## ` section titles to read.
 * @returns file names under gpts/ (without .md).
 */
export function filesOfSections(pageText, sections) {
  const names = [];
  for (const [page, wanted] of Object.entries(sections)) {
    let section;
    for (const line of pageText(page).split("\n")) {
      const heading = line.match(/^## (.*)$/);
      if (heading) section = heading[1].trim();
      const file = line.match(/\]\(\.\/gpts\/([^)]+)\.md\)/);
      if (file && wanted.includes(section)) names.push(decodeURIComponent(file[1]));
    }
  }
  return [...new Set(names)];
}

/**
 * The sampling rule: of the sections' files not read in the fifth round (FILE_NAMES), with a prompt block of at most
 * 4,000 characters that begins in English, every `step`-th in page order.
 *
 * @param show - reads a file of a mirrored repository: `(repo, path, commit) => Buffer`.
 * @param sections - page name -> section titles.
 * @param step - every how many eligible files one is taken.
 * @returns the sampled file names.
 */
export function sampleFlowGptSections(show, sections, step) {
  const read = (path) => show(FLOWGPT.repo, path, FLOWGPT.commit).toString();
  const eligible = filesOfSections((page) => read(`${page}.md`), sections).filter((name) => {
    if (FILE_NAMES.test(name)) return false;
    const parsed = parseFlowGptFile(read(`gpts/${name}.md`));
    return parsed !== undefined && parsed.prompt.length <= MAX_CHARS && beginsInEnglish(parsed.prompt);
  });
  return eligible.filter((_, i) => i % step === 0);
}

const key = (text) => text.toLowerCase().replace(/\s+/g, " ").trim();

/**
 * Builds the labelled items: every CREATIVE_LABEL_STEP-th creative label in list order and every label of the other
 * intents. Fails when a listed file is not in `sampled` (when given), has no prompt block or a long one, or repeats a
 * prompt already among `existing` (case and whitespace ignored).
 *
 * @param show - reads a file of a mirrored repository: `(repo, path, commit) => Buffer`.
 * @param existing - the items built so far (`{ question }`).
 * @param sampled - the file names the sampling rule gives (sampleFlowGptSections over both section lists), to check.
 * @returns items `{ id, question, intent, source }`, in label order.
 */
export function creativePrompts(show, existing, sampled) {
  const seen = new Set(existing.map((it) => key(it.question)));
  const inSample = sampled && new Set(sampled);
  const items = [];
  for (const [intent, names] of Object.entries(CREATIVE_LABELS)) {
    for (const [i, name] of names.entries()) {
      if (intent === "creative-orientation" && i % CREATIVE_LABEL_STEP !== 0) continue;
      if (inSample && !inSample.has(name)) throw new Error(`FlowGPT file ${name} is not among the sampled files`);
      const parsed = parseFlowGptFile(show(FLOWGPT.repo, `gpts/${name}.md`, FLOWGPT.commit).toString());
      if (!parsed || parsed.prompt.length > MAX_CHARS) throw new Error(`FlowGPT file ${name}: no prompt block or over ${MAX_CHARS} characters`);
      if (seen.has(key(parsed.prompt))) throw new Error(`FlowGPT file ${name} repeats a prompt already in the training file`);
      seen.add(key(parsed.prompt));
      items.push({ id: `flowgpt-${name}`, question: parsed.prompt, intent, source: `BlackFriday-GPTs-Prompts gpts/${name}.md (${parsed.title})` });
    }
  }
  return items;
}
