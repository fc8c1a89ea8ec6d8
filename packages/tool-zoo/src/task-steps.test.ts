import { describe, expect, it } from "vitest";
import { isRequest, MAX_TASK_STEPS, requestSteps, splitTaskSteps } from "./task-steps.js";

describe("splitTaskSteps", () => {
  it("splits at commas and conjunctions that start a new verb", () => {
    expect(splitTaskSteps("find the newest release, write a summary to a file and post it to Slack")).toEqual([
      "find the newest release",
      "write a summary to a file",
      "post it to Slack",
    ]);
    expect(splitTaskSteps("type 40 into the hours field, choose Engineering in the dropdown and load the rows into the table")).toEqual([
      "type 40 into the hours field",
      "choose Engineering in the dropdown",
      "load the rows into the table",
    ]);
  });

  it("keeps conjoined objects in one step", () => {
    expect(splitTaskSteps("list the commits and issues of acme/api")).toEqual(["list the commits and issues of acme/api"]);
    expect(splitTaskSteps("stage src/app.ts and src/util.ts in my local repo")).toEqual(["stage src/app.ts and src/util.ts in my local repo"]);
    expect(splitTaskSteps("remember that Bob works at Acme")).toEqual(["remember that Bob works at Acme"]);
  });

  it("splits at 'and then', 'then', 'also' and sentence ends, never inside quotes", () => {
    expect(splitTaskSteps("read ~/notes/todo.md and then create an issue for each item")).toEqual(["read ~/notes/todo.md", "create an issue for each item"]);
    expect(splitTaskSteps("Search for 'cats and dogs. Then more' and summarize the results. Then email it to Bob.")).toEqual([
      "Search for 'cats and dogs. Then more'",
      "summarize the results",
      "email it to Bob",
    ]);
    expect(splitTaskSteps("Find the sum of the multiples of 3 and 5 below 1000. Also find the product of the first five primes.")).toEqual([
      "Find the sum of the multiples of 3 and 5 below 1000",
      "find the product of the first five primes",
    ]);
  });

  it("splits enumerations", () => {
    expect(splitTaskSteps("1. get the weather in Paris 2. convert 30 C to F 3) book a table")).toEqual(["get the weather in Paris", "convert 30 C to F", "book a table"]);
    expect(splitTaskSteps("Steps:\n- list the pods\n- restart the broken one")).toEqual(["Steps", "list the pods", "restart the broken one"]);
    // a number that ends a sentence is no enumeration
    expect(splitTaskSteps("merge PR 12 and close issue 3. Then post it to Slack")).toEqual(["merge PR 12", "close issue 3", "post it to Slack"]);
  });

  it("is bounded: long tasks give at most MAX_TASK_STEPS steps, quickly", () => {
    const long = Array.from({ length: 5000 }, (_, i) => `step ${i} read a file and send it`).join(", then ");
    const steps = splitTaskSteps(long);
    expect(steps.length).toBe(MAX_TASK_STEPS);
    expect(splitTaskSteps("a".repeat(100_000))).toEqual(["a".repeat(100_000)]);
    expect(splitTaskSteps("'".repeat(50_000) + " and send it").length).toBeLessThanOrEqual(2);
  });

  it("starts a step at a verb in no list when an object word follows it, and after a quoted passage's sentence end", () => {
    expect(splitTaskSteps("show me the unstaged diff, stage the files under src/auth and roll it back")).toEqual([
      "show me the unstaged diff",
      "stage the files under src/auth",
      "roll it back",
    ]);
    expect(splitTaskSteps('commit them with the message "fix it". I\'d also like a branch')).toEqual(['commit them with the message "fix it"', "I'd also like a branch"]);
    // plural nouns, gerunds and names are no verbs
    expect(splitTaskSteps("list the pods and services the team uses")).toEqual(["list the pods and services the team uses"]);
    expect(splitTaskSteps("find the voltage of the field, assuming the field is 5 N/C")).toEqual(["find the voltage of the field, assuming the field is 5 N/C"]);
  });

  it("pairs quotes of one kind, and reads a task wrapped in quotes as a whole as unquoted", () => {
    // a backtick does not close a double quote
    expect(splitTaskSteps('Say "hi to `x` now. Then" and stop. Then list the `pods`.')).toEqual(['Say "hi to `x` now. Then"', "stop", "list the `pods`"]);
    expect(splitTaskSteps('"Get the weather in Paris. Then book a table."')).toEqual(["Get the weather in Paris", "book a table"]);
  });

  it("keeps the steps that ask for something: no context, no opening question for help, no bare back-reference", () => {
    expect(requestSteps("Can you help me with a few things? First, get the weather in Paris. Second, convert 30 C to F. Can you do these for me?")).toEqual([
      "get the weather in Paris",
      "convert 30 C to F",
    ]);
    // a question that only refers back asks for the context sentence before it
    expect(requestSteps("Get the weather in Paris. I'm curious about who invented the telephone. Could you find that for me?")).toEqual([
      "Get the weather in Paris",
      "I'm curious about who invented the telephone",
    ]);
    expect(requestSteps("Get the weather in Paris. The telephone was invented long ago. Could you find that for me?")).toEqual([
      "Get the weather in Paris",
      "The telephone was invented long ago, Could you find that for me",
    ]);
    // an opening question with a request of its own, or before a single step, is a step
    expect(requestSteps("Can you help me find the Slack user Bob and his manager? Then message him.")).toEqual(["Can you help me find the Slack user Bob and his manager", "message him"]);
    expect(requestSteps("Could you help me find a hotel? Then book a table near it. Also list the museums and parks there worth a visit this week.")).toEqual([
      "book a table near it",
      "list the museums and parks there worth a visit this week",
    ]);
    // a request that refers back to the context sentence before it is joined to it
    expect(requestSteps("Get the weather in Paris. I'm staying at the Hilton for 5 nights. Could you tell me how much that would cost?")).toEqual([
      "Get the weather in Paris",
      "I'm staying at the Hilton for 5 nights, Could you tell me how much that would cost",
    ]);
    // a condition cut off by its comma stays with its request
    expect(requestSteps("List the pods in the payments namespace. If it is the new deployment, roll it back.")).toEqual([
      "List the pods in the payments namespace",
      "If it is the new deployment, roll it back",
    ]);
    // an imperative that refers back is a step of its own
    expect(requestSteps("Summarise the report. Save it.")).toEqual(["Summarise the report", "Save it"]);
  });

  it("tells requests from context sentences", () => {
    // an imperative whose verb is in no list: a word that can be a verb, then an object word
    for (const request of ["grep the logs for timeouts", "geocode it", "Geocode the trailhead"]) expect(isRequest(request)).toBe(true);
    for (const context of ["Suddenly, the driver brakes", "Point A with coordinates [3, 2]", "Dependabot keeps nagging us", "Yesterday the site went down"]) {
      expect(isRequest(context)).toBe(false);
    }
    for (const request of ["get the weather in Paris", "Could you tell me the time in Tokyo", "I'd like the latest release notes", "what is the price of AAPL?", "I'm curious about the chess rating of Magnus Carlsen"]) {
      expect(isRequest(request)).toBe(true);
    }
    for (const context of ["I'm a teacher in Berlin", "Our team ships every Friday", "Steps"]) expect(isRequest(context)).toBe(false);
  });
});
