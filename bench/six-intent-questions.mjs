// Questions of the benchmarks' six-intent mix: one question per intent in turn, every one distinct
// (template x subject), so each is a cache miss. Written for the benchmark, in everyday phrasing;
// not in the router's training data and not taken from any evaluation set. Used by bench/server.mjs
// (server CPU per cache-miss universal_query) and bench/router.mjs (which path decided, latency).
export const SIX_INTENTS = ["creative-orientation", "technical-analysis", "structural-thinking", "conversation", "rag-retrieval", "data-processing"];

const TEMPLATES = {
  "creative-orientation": [
    "Write a short poem about {s} for a friend's birthday card",
    "Come up with five catchy names for a small shop that sells {s}",
    "Can you write a funny two-line slogan for an ad about {s}?",
    "I need a bedtime story for my kids where the hero is obsessed with {s}",
    "Brainstorm some original ideas for a blog post about {s}",
    "Draft a warm Instagram caption for our photo of {s}",
    "Write the opening paragraph of a mystery novel that starts with {s}",
    "Give me a few creative taglines for a campaign about {s}",
  ],
  "technical-analysis": [
    "My Python script that processes {s} throws a KeyError on the second run, how do I debug it?",
    "Why does my React component that renders {s} re-render forever?",
    "How do I write a unit test for the function that validates {s} in TypeScript?",
    "The Docker build for the service handling {s} fails with permission denied, what's wrong?",
    "Explain why this SQL query over {s} is so slow and how to add the right index",
    "Fix the race condition in my Go worker pool that handles {s}",
    "What's the best way to refactor a 2,000-line class that manages {s}?",
    "Our CI pipeline times out while running integration tests for {s}, how can I find the cause?",
  ],
  "structural-thinking": [
    "Create an outline for a workshop on {s}",
    "How should I structure a project plan for launching {s}, with phases and milestones?",
    "Give me a checklist for preparing a team offsite about {s}",
    "Break the topic of {s} down into subtopics for a course syllabus",
    "What are the pros and cons of outsourcing {s} versus keeping it in house?",
    "Design a template for weekly status reports on {s}",
    "Lay out the agenda for a one-day planning meeting about {s}",
    "Write user stories with acceptance criteria for a feature around {s}",
  ],
  conversation: [
    "Hey, how's your day going? I just got back from a walk and saw {s}",
    "What do you think about {s}? Just curious about your opinion",
    "Any tips for relaxing after a long week? I keep thinking about {s}",
    "Can you recommend a good movie about {s} for tonight?",
    "Haha that's funny, tell me more about {s}",
    "I'm bored, let's chat about {s} for a bit",
    "Good morning! Do you have any fun weekend ideas involving {s}?",
    "Thanks for the help earlier! By the way, have you heard about {s}?",
  ],
  "rag-retrieval": [
    "According to our company handbook, what is the policy on {s}?",
    "Search the knowledge base for the documentation about {s} and cite the source",
    "Summarise what the attached report says about {s}",
    "Find the passage in the contract that mentions {s}",
    "What do the meeting notes from last week say about {s}?",
    "Look up the internal wiki page on {s} and tell me the key points",
    "Which papers in our library discuss {s}? List them with references",
    "Based on the onboarding documents, how do new hires request {s}?",
  ],
  "data-processing": [
    "Convert this CSV of {s} to JSON and remove the duplicate rows",
    "Calculate the monthly totals and averages for the {s} spreadsheet",
    "Sort these {s} records by date and group them by region",
    "Extract the names and amounts from the {s} table into a list",
    "Write a spreadsheet formula that sums the {s} column when the status is paid",
    "Aggregate the {s} sales data per quarter and compute the growth rate",
    "Clean the {s} dataset: fix the date formats and drop empty values",
    "Merge the two {s} exports on customer id and count the matches",
  ],
};

const SUBJECTS = [
  "coffee beans", "vintage bicycles", "indoor plants", "hiking boots", "board games", "sourdough bread", "electric scooters",
  "rainy Sundays", "old maps", "jazz records", "city gardens", "mountain cabins", "paper lanterns", "winter markets",
  "customer invoices", "shipping orders", "library loans", "gym memberships", "solar panels", "train schedules",
  "student grades", "hotel bookings", "warehouse stock", "volunteer shifts", "concert tickets",
];

/** The `n`-th question of the mix: intent `n % 6`, a distinct (template, subject, round) for each n. */
export function sixIntentQuestion(n) {
  const intent = SIX_INTENTS[n % SIX_INTENTS.length];
  const k = Math.floor(n / SIX_INTENTS.length);
  const templates = TEMPLATES[intent];
  const template = templates[k % templates.length];
  const subject = SUBJECTS[Math.floor(k / templates.length) % SUBJECTS.length];
  const round = Math.floor(k / (templates.length * SUBJECTS.length));
  const question = template.replace("{s}", subject);
  return { intent, template, question: round === 0 ? question : `${question} (take ${round + 1})` };
}

/**
 * Which path decided a classification or routing decision (`{ method, cascade? }`): `rules` (patterns alone), `static model`
 * (the static model; in a cascade, confident), `USE model` (a cascade's second model, asked because the static one was unsure),
 * `static model, USE failed` (asked, but failed, overloaded or too slow), `model without embedding` (lexical), `explicit`.
 */
export function decisionPath({ method, cascade }) {
  if (method === "explicit" || method === "default") return method;
  if (method === "pattern") return "rules";
  if (cascade === "escalated") return "USE model";
  if (cascade === "escalation-failed") return "static model, USE failed";
  if (method === "lexical") return "model without embedding";
  return "static model";
}

/** Collects which path decided each question of the mix; `lines()` states it per intent and per question template. */
export function pathLedger() {
  const byIntent = new Map();
  const byTemplate = new Map();
  let total = 0;
  const bump = (map, key, path) => {
    const counts = map.get(key) ?? new Map();
    counts.set(path, (counts.get(path) ?? 0) + 1);
    map.set(key, counts);
  };
  const shares = (counts) => {
    const n = [...counts.values()].reduce((a, b) => a + b, 0);
    return [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([path, k]) => `${path} ${((100 * k) / n).toFixed(1)}%`).join(", ");
  };
  return {
    add(question, decision) {
      const path = decisionPath(decision);
      total++;
      bump(byIntent, "all", path);
      bump(byIntent, question.intent, path);
      bump(byTemplate, question.template, path);
      return path;
    },
    summary: () => Object.fromEntries([...byIntent.entries()].map(([key, counts]) => [key, Object.fromEntries(counts)])),
    lines() {
      const out = [`which path decided (${total} questions): ${shares(byIntent.get("all") ?? new Map())}`];
      for (const intent of SIX_INTENTS) if (byIntent.has(intent)) out.push(`  ${intent}: ${shares(byIntent.get(intent))}`);
      // The question templates some of whose questions took another path than the rules or the static model.
      const other = [...byTemplate.entries()].filter(([, counts]) => [...counts.keys()].some((p) => p !== "rules" && p !== "static model"));
      if (other.length) out.push(`  question templates (x ${SUBJECTS.length} subjects) that took another path: ${other.map(([template, counts]) => `"${template}" (${shares(counts)})`).join("; ")}`);
      return out;
    },
  };
}
