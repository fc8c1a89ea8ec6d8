// Real planning and structuring requests for the structural-thinking intent (fifth round, 2026-11-29): prompts people
// wrote on FlowGPT for their own use and shared there (lesson plans, syllabi, study plans, agendas, checklists, outlines,
// project and business plans, user stories, SWOT analyses, itineraries), as collected in friuns2/BlackFriday-GPTs-Prompts.
// Only files whose name names a structure were read (the FILE_NAMES pattern below, 325 English prompts); each was labelled
// one by one by the labelling rules of data/DATA-SOURCES.md before any model ran on it (file name -> intent below; the
// files not listed are left out). Read at a pinned commit. Used by prepare-real-prompts.mjs.

/** friuns2/BlackFriday-GPTs-Prompts (MIT): FlowGPT prompts, one Markdown file each (title, description, prompt block). */
export const FLOWGPT = { repo: "friuns2+BlackFriday-GPTs-Prompts", commit: "09c530e31212aaca68ab72e2b7fdfbb3faa57a62" };

/** The file names that were read: they name a plan, outline, agenda, checklist, course, template, framework or the like. */
export const FILE_NAMES = /outline|agenda|checklist|syllab|curricul|itinerar|roadmap|user-stor|swot|pros-and-cons|lesson-plan|study-plan|learning-plan|to-do|todo|project-plan|meeting|template|decision-matrix|course|workout-plan|meal-plan|travel-plan|trip-plan|schedule|planner|-plan|framework|breakdown|structure/;

/**
 * One-by-one labels (file name under gpts/, without .md). Left out: role plays and games, prompt generators and other
 * meta prompts, jailbreaks, image prompts, interactive assistants with no request of their own, scheduling or sorting of
 * the user's own tasks (data processing or structure equally), prompts over 4,000 characters, near-copies of a listed
 * prompt by the same author (event planners for other platforms, more meal, business and marketing plans, study
 * schedules), a copy of an awesome-chatgpt-prompts prompt (startup-plan), and requests that fit no intent clearly.
 */
export const FLOWGPT_LABELS = {
  "structural-thinking": [
    "1500-calorie-diet-plan", "3-year-business-strategy-plan", "a-21-day-diet-plan-for-weight-loss",
    "a-business-plan-by-a-specialist-in-ai-and-data-driven-approaches",
    "a-comprehensive-study-plan-for-college-bound-students", "action-plan-generator",
    "agendagenius-agenda-assistant", "ai-course-creator-in-1-click", "ai-optimized-diet-plan-0",
    "ai-teaching-come-up-with-lesson-plans",
    "aicourse-planner-by-cxto21-plan-your-courses-with-artificial-intelligence",
    "aiproject-planner-gantt-jira-dividing-tasks-among-team-roles-by-cxto21", "automated-swot-analysis",
    "blog-structure", "business-plan-valuation", "business-plan-writing-prompt",
    "campaign-proposal-builder-for-marketing-planner",
    "career-development-advisor-teachers-discussioncollaboration-outline", "comprehensive-1500-word-article-outline",
    "comprehensive-marketing-plan-for-a-new-product-launch", "comprehensive-seo-content-planning-guide",
    "content-plan-for-your-blog", "course-creator-1025", "course-designer", "coursecreatorgpt",
    "coursegpt-to-create-course-outline-in-just-one-click", "craft-a-winning-business-plan",
    "craft-winning-marketing-plans", "crafting-tailored-proposal-evaluation-checklists",
    "create-a-personalized-time-management-plan", "create-a-project-plan-with-tasks-deliverables-and-milestones",
    "create-a-ui-elements-checklist", "create-meeting-agenda", "create-user-stories-for-product-development",
    "create-website-design-and-structure", "creating-a-comprehensive-event-plan",
    "creating-a-pbl-works-gold-standard-project-based-learning-outline", "crisis-response-planning-for-business",
    "curriculum-generator-perfect-for-any-educator-lesson-planner", "curriculumcreatorgpt",
    "custom-course-design-generator", "customer-journey-map-outline-generator", "daily-personal-planner",
    "data-collection-planning-your-strategy",
    "ddescribing-the-organization-and-management-structure-of-your-company", "develop-treatment-plan-for-patient",
    "developing-a-strategic-marketing-plan", "esl-lesson-plan-creator", "essay-outline-writer",
    "essay-style-project-plan-syeb-by-step-in-750-or-so-words-please-explain", "event-planner-assistant",
    "event-planning", "event-planning-public-relations-pr-plan", "event-planningdetailed-event-plan",
    "facebook-live-event-planner", "female-fitness-plan", "fitbody-1-month-workout-plan",
    "focus-group-plan-and-script-generator", "free-python-course", "generate-ideas-for-an-seo-page-structure",
    "have-chatgpt-create-a-syllabus-on-any-subject-for-self-paced-learners", "healthy-weekly-meal-planner",
    "hook-outline-for-blog-or-idea", "ib-lesson-plan-profile-builder-1", "lesson-plan-generator",
    "lesson-plan-generator-for-teacher",
    "lesson-plan-introduction-with-related-state-and-national-standards-for-any-subject", "lesson-planning",
    "lessonplannergpt-216", "let-chatgpt-generate-a-plan-of-your-own", "market-segmentation-plan",
    "meal-plan-shopping-list-generator", "meeting-presentation-guides-and-prompts-for-facilitators",
    "monthly-communication-plan", "mrmath-lesson-plan", "one-click-holiday-trip-planner",
    "online-course-creation-accelerator", "outline-for-self-study-foreign-language-according-to-own-goals",
    "outlining-blog-posts-comparing-the-pros-and-cons-of-products-a-and-b", "pbl-outline-generator",
    "performing-a-swot-analysis-for-your-business", "personalized-workout-plan-creation",
    "plagiarism-free-essay-structure-maker",
    "please-create-a-curriculm-for-scriptwriting-this-curriculm-is-for-kids-from-the-age-of-10-till-16-i-should-be-as-as-possible-for-them-to-understand-please-use-stories-as-reference-for-the-kids-the-kid",
    "private-event-planner", "product-manager-user-story-generator-with-acceptance-criteria",
    "professional-essay-outline-writer", "project-planning", "reddit-live-event-planner",
    "research-action-plan-creation", "revision-schedule-creation", "roadmap-for-learning-new-skills",
    "rubricsyllabus-generator-for-teacher", "semester-schedule-creation",
    "seo-keyword-planning-and-content-strategy", "simple-template-1", "social-media-content-planner",
    "social-media-schedule-a-month-of-inspiration-and-innovation", "startup-business-plan",
    "startup-go-to-market-plan", "startup-marketing-plan", "strategic-planning-for-companies",
    "streaming-startup-plan-for-april-2023", "super-actionable-study-plan", "swot-analyse",
    "swot-conducting-a-swot-analysis", "task-planner", "task-prioritization-eisenhower-decision-matrix",
    "the-decision-compass-navigating-tough-situations-with-pros-and-cons", "training-program-outline",
    "turn-your-messy-notes-into-an-actionable-plan", "unleash-the-power-of-meal-planning-with-chatgpt",
    "unlock-your-academic-potential-personalized-study-plan", "user-research-plan-generator",
    "user-stories-for-product-development", "user-stories-generator",
    "user-story-generation-for-pos-slammed-with-solution-suggestions", "user-story-generator",
    "ux-diary-study-plan-and-script-generator", "ux-research-study-plan-generator", "vacation-itinerary-generator",
    "video-script-outline", "video-script-outline-on-youtube", "weekly-dinner-planner",
    "weekly-schedule-template-that-maximizes-productivity-and-balance", "weighing-pros-and-cons-of-each-college",
    "write-a-to-do-list-for-the-day-that-prioritizes-your-most-important-tasks",
  ],
  "creative-orientation": [
    "aida-framework-for-email", "alex-hormozi-100m-offers-template-solution-generator",
    "b2-english-conversation-template", "basic-use-of-drop-downs-in-templates-it-is-very-primitive-but-it-works",
    "before-after-bridge-framework-template", "brainstorming-ideas-for-courses", "career-plan-writer-for-linkedin",
    "chatgpt-cover-letter-generator-template", "coldemailgpt-template-to-generate-cold-email",
    "content-marketing-plan", "email-marketing-campaign-friend-expert-framework", "facebook-event-ideas-planner",
    "generating-a-letter-to-request-approval-to-enroll-to-a-course", "google-ads-creation-template",
    "inviting-to-university-teachers-to-take-a-course", "it-courses-online", "linkedin-article-topic-planner",
    "marketing-sequence-w-proven-framework", "meeting-report",
    "one-click-sales-script-using-alex-hormozis-closer-sales-framework", "schedule-meeting-with-a-students-parent",
    "snapchat-post-generator-template", "social-media-content-plan", "templated-quote-machine", "test-template-2",
    "the-ultimate-email-marketing-campaign-planner",
  ],
  "technical-analysis": [
    "bootstrap-the-file-structure-of-any-aplication-in-react-js", "schemagpt-for-app-structure-planning-gpt-4",
    "tests-generator-for-web-frameworks-python",
  ],
  "conversation": [
    "get-anyone-to-do-anything", "influence-stakeholders-into-doing-ux-research", "tax-planning", "trial-meeting",
    "your-roadmap-to-affordable-and-tailored-car-ownership",
  ],
  "data-processing": [
    "event-planning-prioritizing-event-ideas", "strategic-planning-interpreting-social-media-analytics",
    "unstructured-data-processor",
  ],
  "rag-retrieval": [
    "section-notes-generator-for-udemy-course-from-video-transcripts-into-section-notes",
  ],
};

const MAX_CHARS = 4000;
/**
 * Every second structural label is used (64 of 127; the other intents all): with all 127 the static model lost 3 of the
 * 474 tuning items and 6 of the 174 self-instruct items (decision record 2026-11-29-router-structural-data.md).
 */
export const STRUCTURAL_STEP = 2;
const ENTITIES = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };
const key = (text) => text.toLowerCase().replace(/\s+/g, " ").trim();

/**
 * Reads the prompt block of one FlowGPT file: the fenced block under "# Prompt", HTML entities decoded, trimmed.
 *
 * @param markdown - the file's text.
 * @returns the title and the prompt, or undefined when the file has no prompt block.
 */
export function parseFlowGptFile(markdown) {
  const prompt = markdown.match(/^# Prompt\s*\n+```\n([\s\S]*?)\n```/m)?.[1];
  if (prompt === undefined) return undefined;
  const title = markdown.match(/^# (.*?)(?:\s*\|\s*\[Start Chat\].*)?$/m)?.[1]?.trim() ?? "";
  return { title, prompt: prompt.replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]).trim() };
}

/**
 * Builds the labelled FlowGPT items: every STRUCTURAL_STEP-th structural label in list order, every label of the other
 * intents. Fails when a listed file has no prompt block or is too long, or when a prompt's text
 * (case and whitespace ignored) is already among `existing` (for example a copy of an awesome-chatgpt-prompts prompt).
 *
 * @param show - reads a file of a mirrored repository: `(repo, path, commit) => Buffer`.
 * @param existing - the items built so far (`{ question }`).
 * @returns items `{ id, question, intent, source }`, in label order.
 */
export function structuralPrompts(show, existing) {
  const seen = new Set(existing.map((it) => key(it.question)));
  const items = [];
  for (const [intent, names] of Object.entries(FLOWGPT_LABELS)) {
    for (const [i, name] of names.entries()) {
      if (intent === "structural-thinking" && i % STRUCTURAL_STEP !== 0) continue;
      if (!FILE_NAMES.test(name)) throw new Error(`FlowGPT file ${name} is not among the files read`);
      const parsed = parseFlowGptFile(show(FLOWGPT.repo, `gpts/${name}.md`, FLOWGPT.commit).toString());
      if (!parsed || parsed.prompt.length > MAX_CHARS) throw new Error(`FlowGPT file ${name}: no prompt block or over ${MAX_CHARS} characters`);
      if (seen.has(key(parsed.prompt))) throw new Error(`FlowGPT file ${name} repeats a prompt already in the training file`);
      seen.add(key(parsed.prompt));
      items.push({ id: `flowgpt-${name}`, question: parsed.prompt, intent, source: `BlackFriday-GPTs-Prompts gpts/${name}.md (${parsed.title})` });
    }
  }
  return items;
}
