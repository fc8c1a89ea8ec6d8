import { describe, expect, it } from "vitest";
import { compileIntentLexicon, DEFAULT_INTENT_LEXICON } from "./intent-lexicon.js";
import { lexicalFeatures } from "./lexical-features.js";
import { DEFAULT_INTENT_FEATURE_SETTINGS, intentModelText } from "./intent-model.js";

describe("intent cue lexicon", () => {
  const lexicon = compileIntentLexicon();
  const glossesOf = (text: string) => lexicon.match(text).glosses;
  const conceptsOf = (text: string) => lexicon.match(text).concepts.map((c) => lexicon.concepts[c]!.gloss);

  it("maps words of several languages to the same concept", () => {
    for (const q of ["The build fails with an error", "Der Build bricht mit einem Fehler ab", "Mam błąd w kompilacji", "Il build va in errore"]) {
      expect(conceptsOf(q)).toContain("error");
    }
    expect(conceptsOf("Pomóż mi wymyślić opowiadanie")).toEqual(expect.arrayContaining(["invent", "story"]));
    expect(conceptsOf("Vad säger vår resepolicy?")).toContain("according to");
  });

  it("knows everyday, structure, document and entitlement concepts in several languages", () => {
    expect(conceptsOf("Wie ist das Wetter morgen in Hamburg?")).toContain("weather season");
    expect(conceptsOf("Cosa ne pensi dei film muti?")).toContain("opinion");
    expect(conceptsOf("Qual é a tua receita de bolo preferida?")).toContain("cook food");
    expect(conceptsOf("Jak rozbić nasz monolit na moduły?")).toEqual(expect.arrayContaining(["monolith coupling", "module component layer"]));
    expect(conceptsOf("¿Tengo derecho a días libres por mudanza?")).toContain("allowed entitled");
    expect(conceptsOf("Busca en los documentos del proyecto")).toEqual(expect.arrayContaining(["search", "document pdf"]));
    expect(conceptsOf("Extrahiere die Nummern aus der Datei")).toEqual(expect.arrayContaining(["extract parse", "file"]));
    expect(conceptsOf("there is a bug in this function")).toEqual(expect.arrayContaining(["bug", "function api"]));
    // Compound heads: a known form at the end of a longer word.
    expect(conceptsOf("Unser Build bricht mit einem Speicherfehler ab")).toContain("error");
    expect(conceptsOf("Was sagt die Reisekostenrichtlinie?")).toContain("policy rules");
    expect(conceptsOf("fehler")).toContain("error");
    expect(conceptsOf("Roman")).toContain("novel film art");
    expect(conceptsOf("Kriminalroman")).toContain("novel film art");
    // "such" is English, not the German "suche": no search concept.
    expect(conceptsOf("such a lovely day")).not.toContain("search");
  });

  it("glosses only concepts reached through non-English forms", () => {
    expect(glossesOf("What does the handbook say about travel?")).toEqual([]);
    expect(glossesOf("¿Qué dice el manual sobre viajes?")).toEqual(["according to", "leave expense benefits"]); // "manual" is English too
    expect(glossesOf("Was steht im Handbuch über Reisen?")).toEqual(expect.arrayContaining(["according to", "handbook documentation"]));
  });

  it("matches prefixes, phrases and accent-folded forms", () => {
    expect(conceptsOf("Zusammenführung der Tabellen")).toEqual(expect.arrayContaining(["merge join", "table"]));
    expect(conceptsOf("ça ne marche pas")).toContain("not working");
    expect(conceptsOf("nothing relevant here")).toEqual([]);
  });

  it("feeds concept features and the glossed model text", () => {
    const settings = { ...DEFAULT_INTENT_FEATURE_SETTINGS, conceptWeight: 1, glossModelText: true };
    expect(intentModelText("Waarom crasht mijn app?", settings)).toMatch(/^Waarom crasht mijn app\? \(.*why.*\)$/);
    expect(intentModelText("Why does my app crash?", settings)).toBe("Why does my app crash?");
    expect(intentModelText("Waarom crasht mijn app?", { ...settings, glossModelText: false })).toBe("Waarom crasht mijn app?");
    const plain = lexicalFeatures("fehler", { hashBits: 10 });
    const withConcept = lexicalFeatures("fehler", { hashBits: 10, concepts: ["error"], conceptWeight: 1 });
    expect(withConcept.indices.length).toBe(plain.indices.length + 1);
  });

  it("every concept has English and other-language forms", () => {
    for (const concept of DEFAULT_INTENT_LEXICON) {
      expect(concept.en.length).toBeGreaterThan(0);
      expect(concept.other.length).toBeGreaterThan(0);
    }
  });
});
