import type { IntentPatternConfig } from "./intent-patterns.js";

/** The built-in intent patterns: broad, multilingual (en/es/fr/de/pt/it/nl) cue words for each intent. */
export const DEFAULT_INTENT_PATTERNS: IntentPatternConfig = {
  version: 1,
  fastPath: { minScore: 5, minMargin: 4, maxRunnerUp: 0 },
  intents: {
    "creative-orientation": {
      keywords: {
        vision: 2.5, envision: 3, "envisag*": 2.5, visualize: 2, imagine: 2, "dream*": 2, creative: 2.5, creativity: 2.5,
        aspiration: 2.5, "aspire*": 2, inspiration: 1.5, story: 1.5, stories: 1.5, novel: 1, novella: 2, memoir: 2, poem: 2.5,
        poems: 2.5, poetry: 2.5, song: 1.5, songs: 1.5, lyrics: 2, album: 2, ep: 1, mural: 2, painting: 1.5, sculpture: 2,
        artwork: 2, art: 1, illustration: 1.5, illustrations: 1.5, screenplay: 2.5, comic: 1.5, zine: 2, character: 1.5,
        characters: 1.5, worldbuilding: 3, fantasy: 1.5, fictional: 2.5, fiction: 2, plot: 1.5, premise: 2, logline: 2.5,
        loglines: 2.5, villain: 2, protagonist: 2, brainstorm: 1.5, concept: 1, manifesto: 2, backstory: 2.5, mythology: 2,
        outcome: 1, outcomes: 1, goal: 0.5, goals: 0.5, limerick: 2.5, haiku: 2.5, sonnet: 2.5, slogan: 2, slogans: 2,
        tagline: 2, taglines: 2, jingle: 1.5, rhyme: 1.5, rhyming: 1.5,
        // es / pt / fr / de
        visión: 2.5, visão: 2.5, imaginar: 2, imaginer: 2, vorstellen: 1.5,
        sueño: 2, sueno: 2, sonho: 2, reve: 2, traum: 2, "traum*": 2, cuento: 2, conto: 2, contos: 2, cancion: 2, canciones: 2,
        cancao: 2, cancoes: 2, chanson: 2, chansons: 2, lied: 1.5, lieder: 1.5, roman: 1, novela: 1.5, inventar: 2, inventer: 2,
        erfinden: 2, kreativ: 2.5, creativo: 2.5, criativo: 2.5, creatif: 2.5,
        poema: 2.5, poeme: 2.5, gedicht: 2.5, "*geschichte": 1,
        // it / nl
        immagina: 2, immaginare: 2, immaginiamo: 2, sogno: 2, sogni: 2, visione: 2.5, poesia: 2.5, racconto: 2, racconti: 2,
        canzone: 2, canzoni: 2, inventa: 2, inventare: 2, creativa: 2.5, droom: 2, dromen: 2, visie: 2.5, verhaal: 1.5, verhalen: 1.5,
        verzin: 2, verzinnen: 2, creatief: 2.5,
      },
      phrases: {
        "what i really want": 3, "what i truly want": 3, "i want to create": 3,
        "desired outcome": 3, "desired result": 3, "the result i want": 3,
        "structural tension": 3, "current reality": 2.5, "bring to life": 2, "help me imagine": 3,
        "creative project": 3, "short story": 2.5, "short film": 2, "board game": 1, "world building": 3,
        "quiero crear": 3, "quero escrever": 2, "je veux creer": 3, "j'aimerais ecrire": 2,
        "ich will": 0.5, "me ajuda a imaginar": 3, "ayudame a imaginar": 3,         "stel je voor": 2.5,
      },
      regex: [
        { pattern: "\\bwhat (do|would) (i|we) (really |truly |actually )?want\\b", weight: 2.5, flags: "iu" },
      ],
    },
    "technical-analysis": {
      keywords: {
        bug: 2, bugs: 2, "debug*": 2.5, exception: 2.5, exceptions: 2.5, stacktrace: 3, traceback: 3, segfault: 3,
        "crash*": 1.5, "compil*": 1.5, syntax: 1, undefined: 1.5, null: 0.5, nullpointerexception: 3, npm: 1.5, pip: 1,
        webpack: 2, vite: 1.5, jest: 2, pytest: 2, vitest: 2, javascript: 1.5, typescript: 1.5, python: 1, java: 1, rust: 1,
        golang: 1.5, kotlin: 1.5, swift: 1, "c++": 1.5, "c#": 1.5, php: 1.5, ruby: 1, perl: 1.5, fortran: 1.5, cobol: 1.5,
        react: 1.5, vue: 1.5, angular: 1, svelte: 1.5, django: 1.5, flask: 1.5, rails: 1, spring: 0.5, nodejs: 1.5, node: 0.5,
        regex: 1.5, regexp: 1.5, function: 1, functions: 1, method: 0.5, variable: 1.5, refactor: 2, refactoring: 2, git: 1.5,
        docker: 1, dockerfile: 2, kubernetes: 0.5, sdk: 1.5, async: 1.5, await: 1.5, promise: 1, callback: 1.5, closure: 1.5,
        deadlock: 2.5, "recursi*": 1, compiler: 1, runtime: 1, warning: 1, oom: 2, memory: 0.5, leak: 1.5,
        timeout: 0.5, cors: 2, api: 0.5, endpoint: 0.5, frontend: 0.5, backend: 0.5, code: 1.5, snippet: 2, hook: 1,
        component: 0.5, profiler: 2, "linter": 1.5, lint: 1.5, eslint: 2, typeerror: 3, valueerror: 3, keyerror: 3,
        // es / pt / fr / de
        codigo: 1.5, erreur: 1, fehler: 1.5, fehlermeldung: 2, falla: 1, falha: 1, funcion: 1, funcao: 1, fonction: 1,
        funktion: 1, depurar: 2.5, deboguer: 2.5, compilar: 1.5, programa: 0.5, programm: 0.5, schleife: 2,
        boucle: 2, bucle: 2, laco: 1.5,
        erro: 1.5, fuite: 1.5, "*fehler": 1.5, excepcion: 2.5, excecao: 2.5,
        // it / nl
        errore: 1.5, errori: 1.5, codice: 1.5, funzione: 1, eccezione: 2.5, fout: 1, foutmelding: 2, crasht: 1.5, functie: 1,
        debuggen: 2.5,
      },
      phrases: {
        "stack trace": 3, "memory leak": 2.5, "race condition": 2.5, "this code": 2, "the code": 1.5,
        "this function": 2, "here's the code": 2, "here is the code": 2, "heres the code": 2,
        "here's the function": 2, "unit test": 2, "unit tests": 2, "test fails": 1.5,
        "error message": 1.5, "throws an": 2, "pull request": 1.5,
        "code review": 2.5, "null pointer": 2.5, "out of memory": 2, "status code": 1, "mi codigo": 2, "meu codigo": 2,
        "mon code": 2, "mein code": 2, "diesen code": 2, "ce code": 2, "este codigo": 2, "esse codigo": 2,
        "va in errore": 2, "si blocca": 1.5, "il mio codice": 2, "mijn code": 2, "deze code": 2,
      },
      regex: [
        { pattern: "\\b[A-Z][A-Za-z]*(Error|Exception)\\b", weight: 3, flags: "u" },
        { pattern: "\\b\\w+\\.(java|py|ts|tsx|js|jsx|go|rb|rs|cs|cpp|kt|swift|php):\\d+", weight: 3, flags: "u" },
        { pattern: "```", weight: 2, flags: "u" },
        { pattern: "\\b\\w+\\(\\)", weight: 1.5, flags: "u" },
        { pattern: "\\b(def|func|fn|const|let|var|import|return|class|public|static) [\\w(]", weight: 1, flags: "u" },
        { pattern: "\\b(401|403|404|500|502|503)\\b", weight: 1, flags: "u" },
        { pattern: "\\b(segmentation fault|core dumped|exit(ed)? with code)\\b", weight: 3, flags: "iu" },
      ],
    },
    "structural-thinking": {
      keywords: {
        architecture: 2.5, architectures: 2.5, architectural: 1.5, "architect*": 1, microservice: 2.5, microservices: 2.5,
        monolith: 2.5, "monolith*": 2, structure: 1.5, "structur*": 1, "restructur*": 2, organize: 1.5, organise: 1.5,
        "organiz*": 1, "organis*": 1, hierarchy: 2, taxonomy: 2, layer: 1.5, layers: 1.5, layered: 2, module: 1, modules: 1.5,
        modular: 2, component: 1, components: 1.5, boundary: 1.5, boundaries: 1.5, schema: 1, decouple: 2, "decoupl*": 2,
        coupling: 2, cqrs: 3, ddd: 2.5, hexagonal: 2.5, "trade-off": 1.5, tradeoff: 1.5, "trade-offs": 1.5, tradeoffs: 1.5,
        scalable: 1, "scalab*": 1, gateway: 0.5, pubsub: 1.5, topology: 2, workflow: 1, stages: 1.5, handoffs: 1.5,
        "hand-offs": 1.5, ownership: 1, responsibilities: 1.5, orchestration: 1.5, "design": 0.5, model: 0.5, modelled: 1,
        modeled: 1, diagram: 1, "multi-tenant": 2, sharding: 2, "shard*": 1.5, replication: 1, failover: 2, outline: 1.5,
        agenda: 1.5, syllabus: 2, curriculum: 1,
        // es / pt / fr / de
        arquitectura: 2.5, arquitetura: 2.5, architektur: 2.5, estructura: 1.5, estrutura: 1.5, struktur: 1.5,
        estructurar: 2, estruturar: 2, structurer: 2, strukturieren: 2, organizar: 1.5, organiser: 1.5, organisieren: 1.5,
        modulos: 1.5, capas: 1.5, camadas: 1.5, couches: 1.5, schichten: 1.5, microservicios: 2.5,
        microsservicos: 2.5, etapas: 1, etapes: 1, zustandigkeiten: 1.5, responsabilidades: 1.5, responsables: 1,
        datenmodell: 2.5, entidades: 1.5, entites: 1.5, entitaten: 1.5, "*architektur": 2.5,
        // it / nl
        architettura: 2.5, struttura: 1.5, strutturare: 2, organizzare: 1.5, moduli: 1.5, livelli: 1,
        responsabilita: 1.5, microservizi: 2.5, architectuur: 2.5, structuur: 1.5, structureren: 2, indelen: 1.5, lagen: 1,
        verantwoordelijkheden: 1.5,
      },
      phrases: {
        "design pattern": 2.5, "design patterns": 2.5, "system design": 3, "domain model": 2.5, "data model": 2,
        "entity model": 2.5, "event sourcing": 3, "clean architecture": 3, "separation of concerns": 2.5,
        "message bus": 2, "message queue": 1.5, "service mesh": 2, "org structure": 2.5, "org chart": 2.5,
        "how should we structure": 3, "how should we organize": 3, "how would you organize": 3,
        "how should i structure": 3, "how should i organize": 3, "where should": 1.5, "should live": 1.5,
        "single responsibility": 2, "bounded context": 3, "folder structure": 2.5, "load balancer": 2, "load balancing": 2,
        "high availability": 2, "distributed system": 2.5, "distributed systems": 2.5, "fault tolerant": 2, "fault tolerance": 2,

        "modelo de datos": 2.5, "modelo de dados": 2.5, "modele de donnees": 2.5,
        "come organizzare": 2.5, "hoe structureren": 3,
      },
      regex: [
        { pattern: "\\b(should|would) (we|you|i) (split|structure|organi[sz]e|lay out|layer|model|separate)\\b", weight: 2, flags: "iu" },
      ],
    },
    conversation: {
      keywords: {
        hi: 2, hello: 2.5, hey: 1.5, hiya: 2.5, howdy: 3, thanks: 2, thank: 1.5, thx: 2, bye: 3, goodbye: 3, joke: 2.5,
        jokes: 2.5, funny: 1.5, lol: 3, haha: 3, bored: 2, favorite: 2, favourite: 2, opinion: 1.5, recipe: 1.5, cook: 1,
        movie: 1.5, movies: 1.5, film: 0.5, weekend: 1, hobby: 2, vacation: 1, trip: 0.5, birthday: 1.5, gift: 1.5,
        weather: 1.5, sleep: 1.5, recommend: 0.5, fun: 1, feel: 0.5,
        // es / pt / fr / de
        hola: 3, gracias: 2.5, adios: 3, chiste: 2.5, bonjour: 3, bonsoir: 3, salut: 3, merci: 2.5, blague: 2.5, hallo: 3,
        danke: 2.5, tschuss: 3, witz: 2.5, oi: 3, ola: 3, obrigado: 2.5, obrigada: 2.5, piada: 2.5, pelicula: 1.5,
        filme: 1,  receta: 1.5, receita: 1.5, recette: 1.5, rezept: 1.5,
        // it / nl
        ciao: 3, grazie: 2.5, barzelletta: 2.5, buongiorno: 3, buonasera: 3, ricetta: 1.5, hoi: 3, bedankt: 2.5, dankjewel: 2.5,
        grap: 2.5, goedemorgen: 3, recept: 1.5,
      },
      phrases: {
        "how are you": 3, "how's it going": 3, "hows it going": 3, "what's up": 2, "whats up": 2, "good morning": 3,
        "good evening": 3, "good night": 3, "see you": 2.5, "thank you": 2, "fun fact": 2.5, "what do you think": 1.5,
        "do you think": 1, "do you like": 2, "do you ever": 2, "do you prefer": 2.5, "your favorite": 2.5,
        "your favourite": 2.5, "are you a": 2, "tell me a joke": 3, "que tal": 3, "como estas": 3, "buenos dias": 3,
        "buenas tardes": 3, "buenas noches": 3, "ca va": 3, "comment vas tu": 3, "wie geht": 3, "guten morgen": 3,
        "guten tag": 2.5, "guten abend": 3, "tudo bem": 3, "bom dia": 3, "boa tarde": 3, "boa noite": 3, "hasta luego": 3,
        "a bientot": 3, "bis spater": 3, "ate logo": 3,
        "come stai": 3, "secondo te": 2, "cosa ne pensi": 2, "hoe gaat het": 3, "wat vind je": 2,
        "wat vind jij": 2,
      },
      regex: [
        { pattern: "^\\W*(hi|hello|hey|yo|hiya|hola|bonjour|salut|hallo|moin|servus|oi|ol[áa])\\b\\W*$", weight: 4, flags: "iu" },
        { pattern: "^\\W*(thanks|thank you|thx|cheers|gracias|merci|danke|obrigad[oa])\\b", weight: 3, flags: "iu" },
      ],
    },
    "rag-retrieval": {
      keywords: {
        "knowledge-base": 3, kb: 2, wiki: 2, confluence: 3, sharepoint: 3, intranet: 2.5, handbook: 2.5, manual: 1.5,
        policy: 2, policies: 2, guidelines: 2, guideline: 2, documentation: 2, docs: 1.5, documented: 2.5, document: 1,
        documents: 1.5, doc: 1, cite: 2.5, citation: 2.5, citations: 2.5, sources: 1.5, source: 0.5, clause: 2, clauses: 2,
        contract: 1.5, agreement: 1.5, sla: 2, minutes: 1, transcript: 1.5, transcripts: 1.5, postmortem: 1.5,
        runbook: 2.5, playbook: 2, faq: 2, retrieve: 2, uploaded: 1.5, attached: 0.5, memo: 1.5, archive: 1.5,
        "precedent*": 2, directory: 1, catalog: 1, catalogue: 1, glossary: 2, "handbook*": 2, lookup: 0.5, "look-up": 0.5,
        // es / pt / fr / de
        politica: 2, politique: 2, richtlinie: 2.5, richtlinien: 2.5, handbuch: 2.5, documentacion: 2, documentacao: 2,
        dokumentation: 2, documento: 1.5, documentos: 1.5, dokument: 1.5, contrato: 1.5, contrat: 1.5, vertrag: 1.5,
        reglamento: 2, regulamento: 2, reglement: 2, procedimiento: 1.5, procedure: 1, verfahren: 1,
        segun: 2, selon: 2, laut: 2,
        "*handbuch": 2.5, "*richtlinie": 2.5, "*dokumentation": 2, charte: 1.5, acta: 1.5, protokoll: 1.5, ata: 1,
        // it / nl
        regolamento: 2, manuale: 2, documentazione: 2, contratto: 1.5, procedura: 1.5, verbale: 1.5, beleid: 2, handboek: 2.5,
        documentatie: 2, volgens: 2, notulen: 2, richtlijn: 2.5,
      },
      phrases: {
        "knowledge base": 3, "according to": 2.5, "per the": 2, "our policy": 3, "our docs": 2.5,
        "the documentation": 2, "meeting notes": 2.5, "release notes": 2, "help center": 2.5,
        "terms of service": 2, "look up": 1.5, "search the": 1.5,         "what does the": 1,
        "base de conocimiento": 3, "base de conhecimento": 3, "base de connaissances": 3, "que dice": 2, "o que diz": 2,
        "que dit": 2, "busca en": 2, "procure na": 2, "such im": 2,         "nossa politica": 3, "notre politique": 3, "unsere richtlinie": 3,
        "was sagt": 2.5, "que diz": 2,
        "secondo la": 1.5, "secondo il": 1.5, "dove trovo": 1.5,         "waar staat": 2, "ons beleid": 3, "la nostra politica": 3,
      },
      regex: [
        { pattern: "\\bwhat (does|do|did) (the|our|my) [\\w' -]{2,40} (say|said|state|mention|recommend|conclude)\\b", weight: 3, flags: "iu" },
        { pattern: "\\b(in|from|per) (the|our) [\\w -]{0,25}(handbook|wiki|docs|documentation|manual|policy|contract|agreement|notes|minutes|report|guide|catalog|catalogue|knowledge base)\\b", weight: 2, flags: "iu" },
      ],
    },
    "data-processing": {
      keywords: {
        csv: 2.5, tsv: 2.5, json: 1.5, xml: 1, parquet: 3, excel: 2, spreadsheet: 2, spreadsheets: 2, xlsx: 2.5, etl: 3,
        elt: 2.5, pipeline: 1, dataset: 2, datasets: 2, dataframe: 3, pandas: 1, sql: 1.5, query: 0.5, table: 1, tables: 1,
        rows: 2, row: 1.5, column: 2, columns: 2, "aggregat*": 2.5, groupby: 2.5, sum: 1.5, sums: 1.5, average: 1.5,
        averages: 1.5, median: 2, mean: 0.5, percentile: 2, percentiles: 2, pivot: 2.5, "dedup*": 2.5, duplicates: 2,
        duplicate: 1.5, merge: 1, join: 1, "clean*": 1, "normaliz*": 1, "standardiz*": 1.5, convert: 1.5, transform: 1.5,
        "transformation*": 1.5, parse: 1.5, outlier: 2, outliers: 2, resample: 2.5, "interpolat*": 2, cohort: 2,
        ingest: 1.5, "impute*": 2, records: 1, "jq": 2, "one-hot": 2.5, totals: 1, total: 0.5,
        // es / pt / fr / de
        planilha: 2.5, tableur: 2.5, tabelle: 1.5, datos: 1.5, dados: 1.5, donnees: 1.5, daten: 1.5, columna: 2, coluna: 2,
        colonne: 2, spalte: 2, filas: 1.5, linhas: 1.5, lignes: 1.5, zeilen: 1.5, duplicados: 2.5, doublons: 2.5,
        duplikate: 2.5, convertir: 1.5, converter: 1.5, converto: 1.5, convertis: 1.5, konvertieren: 1.5, umwandeln: 1.5,
        wandle: 1.5, suma: 1.5, somar: 1.5, somme: 1.5, summe: 1.5, promedio: 2, media: 1, moyenne: 2, durchschnitt: 2,
        agrupar: 2, agrupo: 2, grouper: 2, gruppieren: 2, hoja: 0.5,
        dubletten: 2.5, zahle: 1, berechne: 1.5, calcula: 1.5, calcule: 1.5, regroupe: 1.5, zusammenfuhren: 1.5,
        // it / nl
        tabella: 1.5, foglio: 1, colonna: 2, righe: 1.5, duplicati: 2.5, somma: 1.5, raggruppa: 2, ordina: 1, converti: 1.5,
        dati: 1.5, tabel: 1.5, kolom: 2, kolommen: 2, rijen: 1.5, dubbele: 2, gemiddelde: 2, groepeer: 2, bereken: 1.5,
        gegevens: 1.5,
      },
      phrases: {
        "group by": 2.5, "rolling average": 2.5, "moving average": 2.5, "missing values": 2, "data set": 2,
        "per row": 1.5, "hoja de calculo": 2.5, "data cleaning": 3,
        "clean up the data": 3, "window function": 2, "sql query": 1.5, "write a query": 2,         "zet om": 1.5,
      },
      regex: [
        { pattern: "\\bper (day|week|month|quarter|year|hour|customer|user|client|region|store|category|product|country|department|person)\\b", weight: 2, flags: "iu" },
        { pattern: "\\b(select|insert|update|delete)\\b[\\s\\S]{1,200}\\b(from|into|set)\\b", weight: 1, flags: "iu" },
        { pattern: "\\b\\d+(\\.\\d+)?\\s?(k|m|million|thousand)? rows\\b", weight: 2, flags: "iu" },
      ],
    },
  },
};
