import { describe, expect, it } from "vitest";
import { lexicalFeatures, speechActs } from "./lexical-features.js";

describe("speechActs", () => {
  it("tells a first-person statement sharing news from a request for help", () => {
    const shared = speechActs("I finally got the tests green today, feeling great haha");
    expect(shared).toEqual(expect.arrayContaining(["mood:statement", "narrate", "share", "laugh"]));
    const request = speechActs("Help me find why the tests fail");
    expect(request).toContain("mood:request");
    expect(request).not.toContain("narrate");
    expect(request).not.toContain("share");
  });

  it("treats a question opener without a question mark as a question", () => {
    expect(speechActs("why does the build take so long")).toContain("mood:ask");
    expect(speechActs("why does the build take so long")).not.toContain("question-mark");
    expect(speechActs("the build takes long.")).toContain("mood:statement");
  });

  it("marks first-person entitlement questions and whether they name the organisation", () => {
    expect(speechActs("How much parental leave can I take at my company?")).toEqual(expect.arrayContaining(["entitle", "entitle-org"]));
    expect(speechActs("Do I get a bonus for working here?")).toContain("entitle-org");
    expect(speechActs("Can I use a for loop over a map?")).toContain("entitle");
    expect(speechActs("Can I use a for loop over a map?")).not.toContain("entitle-org");
    expect(speechActs("Here is my loop, can I simplify it?")).not.toContain("entitle-org");
  });

  it("works in other languages", () => {
    expect(speechActs("¿Puedo pedir días libres en nuestra empresa?")).toContain("entitle-org");
    expect(speechActs("Darf ich bei der Arbeit Kopfhörer tragen?")).toContain("entitle-org");
    expect(speechActs("Hier j'ai enfin terminé mon premier site mdr")).toEqual(expect.arrayContaining(["narrate", "laugh"]));
    expect(speechActs("Aide-moi à corriger cette erreur")).toContain("mood:request");
  });

  it("finds emoticons and emoji but not code punctuation", () => {
    expect(speechActs("deployed it :)")).toContain("laugh");
    expect(speechActs("shipped it 🎉")).toContain("laugh");
    expect(speechActs("what does a[i](x) return")).not.toContain("laugh");
  });

  it("records the first word and returns nothing but the mood for empty text", () => {
    expect(speechActs("Convert this file")).toContain("start:convert");
    expect(speechActs("")).toEqual(["mood:statement"]);
  });
});

describe("lexicalFeatures speech acts", () => {
  it("adds speech-act features", () => {
    const withActs = lexicalFeatures("lol", { hashBits: 12, charWeight: 0 });
    expect(withActs.indices.length).toBe(1 + speechActs("lol").length);
  });
});

describe("lexicalFeatures", () => {
  it("gives each text the same sparse unit vector whatever was featurised before it", () => {
    const text = "the the the report on Q3 sales per region";
    const first = lexicalFeatures(text);
    lexicalFeatures("a completely different question about poems and poems", { hashBits: 10 });
    lexicalFeatures("another one with other words");
    const again = lexicalFeatures(text);
    expect(Array.from(again.indices)).toEqual(Array.from(first.indices));
    expect(Array.from(again.values)).toEqual(Array.from(first.values));
    expect(new Set(first.indices).size).toBe(first.indices.length);
    expect(first.values.reduce((sum, v) => sum + v * v, 0)).toBeCloseTo(1, 5);
    // A repeated word counts sublinearly: "the" three times weighs 1 + ln 3 before normalisation, more than a word seen once.
    const small = lexicalFeatures("the the the cat", { charWeight: 0 });
    const values = Array.from(small.values).sort((a, b) => b - a);
    expect(values[0]! / values[values.length - 1]!).toBeGreaterThan(1.5);
    expect(lexicalFeatures("", { hashBits: 8 }).indices.every((i) => i < 256)).toBe(true);
  });
});
