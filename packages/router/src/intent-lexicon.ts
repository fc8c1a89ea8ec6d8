import { createHash } from "node:crypto";
import { foldText, foldedWords, splitWords } from "./text-normalization.js";

/** One concept of the multilingual cue lexicon: an English gloss and the word forms (any language) that express it. */
export interface IntentLexiconConcept {
  /** English word(s) standing for the concept; also the name of its feature. */
  gloss: string;
  /** English forms (they do not add a gloss to the model text). */
  en: string;
  /** Forms in other languages, `|`-separated. */
  other: string;
}

/** The built-in cue lexicon: intent-bearing words in en/es/fr/de/pt/it/nl/pl/sv mapped to language-independent concepts. */
export const DEFAULT_INTENT_LEXICON: readonly IntentLexiconConcept[] = [
  // everyday vocabulary: weak cues on their own, but their English glosses give the English-only sentence encoder the
  // gist of a question written in another language
  { gloss: "write", en: "write|writing", other: "escribir|escribe|escrib*|ecrire|ecris|ecrit|schreib*|scrivere|scrivi|scrive|escrever|escreve|schrijven|schrijf|napisac|napisz|pisac|skriva|skriv" },
  { gloss: "want wish", en: "i want|i'd like|i would like|i wish", other: "wunschen|wunsche|wunscht|quiero|quisiera|me gustaria|je veux|j aimerais|je voudrais|ich mochte|ich will|ich wurde gern|ich wunsche|vorrei|voglio|mi piacerebbe|quero|queria|gostaria|ik wil|ik zou graag|chce|chcialbym|chcialabym|jag vill|jag skulle vilja|istiyorum" },
  { gloss: "idea", en: "idea|ideas", other: "idea|ideas|idee|idees|ideen|ideia|ideias|pomysl*|ideer|fikir*" },
  { gloss: "customer order", en: "customer*|client*|order|orders|invoice*", other: "cliente*|client|clients|kunde|kunden|klant*|klient*|kund|kunder|pedido*|commande*|bestellung*|ordine|ordini|encomenda*|bestelling*|zamowien*|bestallning*|factura*|facture*|rechnung*|fattur*|fatura*|factuur*|faktur*" },
  { gloss: "product app user", en: "app|apps|website|user|users|login", other: "aplicacion|applicacion|appli|anwendung|applicazione|aplicativo|aplikacja|sitio web|site web|webseite|sito|strona|webbplats|usuario*|utilisateur*|benutzer*|nutzer*|utente|utenti|gebruiker*|uzytkownik*|anvandare" },
  { gloss: "meaning purpose", en: "meaning|purpose|really want", other: "sentido|proposito|sinn|zweck|senso|scopo|significado|proposito|betekenis|doel|sens zycia|cel|mening|syfte" },
  // creative-orientation
  { gloss: "imagine", en: "imagine|imagining|envision*|picture|visualiz*|visualis*", other: "ausmalen|male dir|imagin*|immagin*|vorstell*|stell dir vor|stel je voor|verbeeld*|wyobraz*|forestall dig|tank dig" },
  { gloss: "invent", en: "invent*|make up|come up with|dream up", other: "erfind*|erfunden|verzin*|bedenk|bedenken|wymysl*|hitta pa|crie|cria" },
  { gloss: "create", en: "create|creating|creation", other: "crear|criar|creer|creez|kreier*|erschaff*|creare|crea|creeren|creer|stworz*|skapa*" },
  { gloss: "story", en: "story|stories|tale|tales|legend*|fairy tale|fable*", other: "*geschichte|*geschichten|*verhaal|cuento*|historia|historias|histoire|histoires|historinha*|historyjk*|geschicht*|storia|storie|racconto*|conto|contos|verhaal*|verhalen|sprookje*|opowiadani*|opowiesc*|bajk*|berattels*|saga|sagor|fabel*|leyenda*|legende*|leggend*|lenda*" },
  { gloss: "poem song", en: "poem*|poetry|song*|lyrics|haiku|verse*", other: "poema*|poesi*|poeme*|poezj*|gedicht*|dikt*|wiersz|wierszyk*|cancion*|chanson*|lied|lieder|liedje*|canzon*|piosenk*|letra*|testo canzone|cancao|cancoes" },
  { gloss: "dream vision", en: "dream*|vision*|aspiration*", other: "sueno|suenos|sonar con|sonh*|reve|reves|rever|traum*|sogn*|droom*|dromen|marzen*|marzy*|drom|drommar|vision|visao|visione|visie|wizj*" },
  { gloss: "ideal future", en: "ideal|future|someday", other: "ideal*|ideaal|idealn*|futur*|zukunft|toekomst|przyszlos*|framtid*|avenir|un jour|algun dia|um dia|eines tages|un giorno|ooit|kiedys|nagon gang" },
  { gloss: "character world", en: "character*|protagonist*|villain*|worldbuilding|saga|fantasy|role-playing|roleplaying|rpg", other: "figur|figuren|fantasywelt|fantasia|fantastique|rollenspiel*|juego de rol|jeu de role|gioco di ruolo|rollenspel|personaje*|personnage*|personaggi*|personagem*|postac*|karaktar*|romanfigur*|mundo|monde|welt|mondo|wereld|swiat|varld" },
  { gloss: "novel film art", en: "novel|novels|screenplay*|film idea|painting*|mural*|album|theater*|theatre", other: "*roman|*romans|*romane|fotobuch*|fotoboek*|novela*|roman|romans|romanzo*|powiesc*|guion*|drehbuch*|sceneggiatur*|pintura*|peinture*|gemalde|dipint*|schilderij*|obraz*|malning*|teatro|theater*|theatre|teater*|teatr*|obra de teatro|piece de theatre|theaterstuck*|toneelstuk*|sztuk*|pjas*" },
  { gloss: "slogan ad post", en: "slogan*|tagline*|jingle*|ad copy|advert*|blog post*|caption*|tweet*|limerick*|sonnet*|rhym*", other: "eslogan*|werbespruch*|werbetext*|anuncio*|annonce publicitaire|annuncio*|reclame*|reklam*|rima|rimas|rime|rimes|reim|reime|reimen" },
  { gloss: "name identity", en: "identity|brand", other: "nazw*|identidad*|identite|identitat|identita|identidade|identiteit|tozsamos*|identitet" },
  { gloss: "feel atmosphere", en: "feel like|should feel|look and feel|atmosphere|mood|vibe", other: "anfuhlen|anfuhlt|wirken|sentirse|se sienta|se sentir|sentire|sentirsi|voelen|aanvoelen|czuc sie|kannas|atmosfera|ambiance|ambiente|stimmung|sfeer|nastroj|atmosfar" },
  { gloss: "goal", en: "goal|goals|aim for|achieve|stand for", other: "ziel|ziele|erreichen|objetivo*|objectif*|obiettiv*|lograr|atteindre|raggiungere|alcancar|bereiken|osiagnac|uppna|stehen soll|stehen fur" },
  // technical-analysis
  { gloss: "error", en: "error*|exception*|stack trace|traceback", other: "erreur*|fehler*|*fehler|*fehlers|*fout|*fouten|errore|errori|erro|erros|fout|fouten|foutmelding*|blad|bledu|bledy|fel|felet|felmeddelande*|excepcion*|excecao*|eccezion*|wyjatek*|undantag*" },
  { gloss: "crash fail", en: "crash*|fail*|broken|hangs|freezes|restart*|reboot*", other: "reinici*|redemarr*|neustart*|startet neu|riavvi*|herstart*|restartuj*|startar om|falla*|falha*|echou*|echec*|plante|plantage|absturz*|sturzt|abgesturzt|si blocca|blocca*|crasht|vastloper|loopt vast|zawiesza*|wywala*|awari*|kraschar|krasch*|hanger sig|se cuelga|se bloquea|trava|travou|travando|si chiude|chiude*|se ferme|schliesst sich|sluit af|zamyka sie|stangs|*absturz|*absturze" },
  { gloss: "not working", en: "doesn't work|does not work|not working|stopped working|won't start", other: "no funciona|ne marche pas|ne fonctionne pas|nao funciona|funktioniert nicht|geht nicht|non funziona|werkt niet|nie dziala|fungerar inte|funkar inte|ya no|nicht mehr|nao mais|non piu|niet meer|juz nie|inte langre" },
  { gloss: "code", en: "code|script*|program|programming|programmer*|snippet*", other: "codigo*|codice|kod|kodu|koden|programm*|programa*|skrypt*|skript*|programmet|programmeer*" },
  { gloss: "fix debug", en: "fix|fixing|debug*|troubleshoot*|repair*", other: "arregl*|corrig*|repar*|beheb*|risolv*|oplossen|los op|naprawi*|napraw|fixa|laga|depur*|debugg*|debogu*" },
  { gloss: "slow", en: "slow*|latency|timeout*|cpu|hangs|takes forever", other: "dauert ewig|ladt ewig|tarda mucho|tarda una eternidad|prend une eternite|met une eternite|ci mette una vita|demora muito|duurt eeuwig|trwa wieki|tar evigheter|lent*|langsam*|lento|traag|trage|wolno|wolny|langsam|langsamt|lents|rendimiento|leistung|prestazion*|desempenho|prestaties|wydajnos*|prestanda" },
  { gloss: "deploy server app", en: "deploy*|server|compile*|container*|docker", other: "contenedor*|conteneur*|contentor*|contenitor*|kontener*|servidor|serveur|despliegue|implantacao|bereitstell*|rilascio|uitrol*|wdrozen*|driftsattning|aplicacion|aplicacao|aplikacj*|applicazione|anwendung|applicatie|applikation*|compil*|kompil*" },
  { gloss: "why", en: "why|how come", other: "por que|porque|pourquoi|warum|wieso|weshalb|perche|waarom|dlaczego|czemu|varfor" },
  { gloss: "test", en: "test|tests|unit test*|ci pipeline|the ci|in ci", other: "prueba*|teste|testes|testy|testu|testen|testar" },
  { gloss: "bug", en: "bug|bugs|buggy|glitch*|regression*", other: "bogue*|fallo|fallos|baco|bachi|bledzie|buga|bugu|buggar|buggen" },
  { gloss: "function api", en: "function|functions|method|methods|variable*|api|apis|endpoint*|sdk|framework*|dependenc*|compiler", other: "funcion|funciones|fonction|fonctions|funktion|funktionen|funzione|funzioni|functie|functies|funkcj*|metodo|metodos|methode|methoden|metoda|metody|variabl*|variabel*|zmienn*|dependencia*|dependance*|abhangigkeit*|dipendenz*|afhankelijkhe*|zaleznos*|beroende*" },
  // structural-thinking
  { gloss: "structure", en: "structur*|restructur*|layout|lay out", other: "estructur*|estrutur*|struktur*|*struktur|*strukturen|struttur*|structuur*|structureren|uklad*|opbouw|aufbau|indeling" },
  { gloss: "organize", en: "organiz*|organis*|arrange", other: "organiz*|organis*|organizz*|ordnen|gliedern|indel*|uporzadk*|zorganiz*|ordna" },
  { gloss: "split divide", en: "split*|divide*|division*|break up|break down|carve|separate", other: "divid*|divis*|decoup*|separar|separer|aufteil*|aufteilen|teilen|unterteil*|zerleg*|trenn*|suddivid*|separare|verdel*|opsplits*|opdelen|splitsen|podziel*|rozdziel*|dela upp|uppdel*|split*" },
  { gloss: "architecture", en: "architect*", other: "arquitect*|arquitet*|architektur*|*architektur|architett*|architectuur*|arkitektur*|architektur" },
  { gloss: "module component layer", en: "module*|modular|component*|layer*|subsystem*", other: "modul*|componente*|composant*|komponent*|capa|capas|camada*|couche*|schicht*|livell*|laag|lagen|warstw*|lager|lagren|bloque*|bausteine" },
  { gloss: "service", en: "service*|microservice*", other: "servicio*|servico*|servizi*|dienst*|uslug*|tjanst*|microservic*|microservi*|mikroserw*" },
  { gloss: "responsibility", en: "responsibilit*|ownership|owns|who owns|role|roles", other: "responsabil*|zustandig*|verantwortlich*|verantwortung|verantwoordelijk*|odpowiedzialn*|ansvar*|roles|rollen|ruoli|papeis|role" },
  { gloss: "design", en: "design|designing|blueprint", other: "disen*|diseñ*|concevoir|conception|entwerf*|entwurf*|entwerfen|progett*|ontwerp*|projet*|projektowa*|zaprojekt*|projetar|desenhar|utforma*" },
  { gloss: "team", en: "team*|department*|squad*", other: "equipo*|equipe*|squadr*|zespol*|afdeling*|abteilung*|departamento*|reparto|avdelning*" },
  { gloss: "tradeoff", en: "trade-off*|tradeoff*|pros and cons|pros cons", other: "ventaja*|desventaja*|avantage*|inconvenient*|vorteil*|nachteil*|vantagg*|svantagg*|voordel*|nadel*|zalety|wady|fordel*|nackdel*|vantagen*|desvantagen*" },
  { gloss: "pattern", en: "pattern|patterns|design pattern*|anti-pattern*|antipattern*", other: "patron de|patrones|patron de diseno|entwurfsmuster*|muster|pattern|patroon*|patronen|wzorzec*|wzorc*|monster|monstret|padrao|padroes|modele de conception|modeles de conception" },
  { gloss: "monolith coupling", en: "monolith*|coupling|coupled|decoupl*|tangled|boundaries|bounded context*", other: "monolit*|monolith*|monoliet*|acopl*|desacopl*|couplage|couple|kopplung|entkoppl*|gekoppelt|accoppia*|disaccoppia*|koppeling*|ontkoppel*|sprzez*|koppling*|frikoppl*" },
  { gloss: "scale grow", en: "scal*|grow|grows|growing|growth", other: "escal*|skalier*|scalab*|schaal*|schaalbaar*|skalow*|skalbar*|crecer|crece|crecemos|crecimiento|croissance|grandir|grandit|wachsen|wachst|wachstum|crescere|cresce|crescita|crescer|cresce|groei*|rozwoj*|rosnie|vaxa|vaxer|tillvaxt" },
  { gloss: "where belongs", en: "where should|belongs|belong in|should live", other: "donde deberia|donde deben|ou devrait|ou doit|wo sollte|wo gehort|dove dovrebbe|dove deve|waar moet|waar hoort|gdzie powin*|var ska|var bor|onde deveria|onde deve" },
  { gloss: "distributed system", en: "distributed|load balancer|load balancers|load balancing|shard*|replica*|failover|high availability|throughput|requests per second|fault tolerant|fault tolerance", other: "distribuid*|verteilt*|distribuit*|gedistribueerd*|rozproszon*|distribuerad*|lastverteil*|alta disponibilidad|haute disponibilite|hochverfugbar*" },
  { gloss: "outline plan", en: "outline*|agenda*|syllabus*|curriculum|template*|roadmap*|table of contents", other: "esquema|gliederung*|temario|plantilla*|vorlage*|sjabloon*|szablon*|inhaltsverzeichnis|table des matieres|scaletta" },
  // conversation
  { gloss: "hello", en: "hello|hi|hey|hiya|howdy|good morning|good evening|good afternoon", other: "hola|buenas|buenos dias|bonjour|bonsoir|salut|coucou|hallo|servus|moin|guten tag|guten morgen|ola|oi|bom dia|boa tarde|ciao|salve|buongiorno|hoi|goedemorgen|goedemiddag|goedenavond|czesc|dzien dobry|hej|hejsan|tjena|halla|god morgon|konnichiwa|ohayo|ni hao|merhaba|privet" },
  { gloss: "thanks", en: "thanks|thank you|thx|cheers", other: "gracias|merci|danke|obrigado|obrigada|grazie|bedankt|dank je|dankjewel|dziekuj*|tack|arigato|xie xie|tesekkur*|spasibo" },
  { gloss: "how are you", en: "how are you|how's it going|hows it going|what's up|whats up|how was your", other: "que tal|como estas|como esta|ca va|comment vas|comment allez|wie geht|wie gehts|tudo bem|como vai|come stai|come va|hoe gaat|hoe is het|jak sie masz|co slychac|hur mar|hur ar det|genki|ni hao ma" },
  { gloss: "favorite like", en: "favorite|favourite|do you like|would you rather|prefer|preference*", other: "favorit*|preferid*|prefere*|lieblings*|preferit*|lievelings*|ulubion*|te gusta|tu aimes|magst du|ti piace|vind je|lubisz|gillar du|voce gosta" },
  { gloss: "joke fun", en: "joke*|funny|fun fact|lol|haha", other: "chiste*|broma*|blague*|witz*|piada*|barzellett*|grap|grapje*|moppen|dowcip*|kawal*|skamt*|curiosidad*|curiosite|curiosita|curiosidade*|weetje*|ciekawostk*|jaja|mdr|xd" },
  { gloss: "weekend movie", en: "weekend|movie*|tonight|vacation|holiday*", other: "fin de semana|week-end|wochenende|fim de semana|fine settimana|weekend|helg*|pelicula*|filme|filmes|filmy|filmen|esta noche|ce soir|heute abend|stasera|esta noite|vanavond|dzis wieczorem|ikvall|vacacion*|vacances|urlaub|ferias|vacanze|vakantie|wakacj*" },
  { gloss: "feel tired day", en: "tired|bored|rough day|my day|your day|feeling", other: "cansad*|aburrid*|fatigue*|ennui*|mude|mude|gelangweilt|stanc*|annoiat*|moe|verveel*|zmeczon*|znudzon*|trott|uttrakad|tu dia|ta journee|dein tag|seu dia|tua giornata|je dag|twoj dzien|din dag" },
  { gloss: "cook food", en: "recipe*|cook|cooking|bake|baking|dinner|breakfast|lunch", other: "receta*|recette*|rezept*|ricett*|receita*|recept*|przepis*|cocinar|cocino|cuisin*|cuire|kochen|koche|cucinare|cucino|koken|kook|gotow*|ugotowac|laga mat|cozinh*|hornear|backen|cuocere|bakken|upiec|baka|abendessen|jantar|avondeten|kolacj*|frukost|desayuno|petit dejeuner|fruhstuck|colazione|ontbijt|sniadan*|pasta|pates|nudeln|macarrao|makaron" },
  { gloss: "weather season", en: "weather|season*|summer|winter|raining|sunny", other: "clima|meteo|wetter|het weer|que tiempo hace|quel temps|che tempo fa|que tempo faz|wie ist das wetter|jaka pogoda|hur ar vadret|pogod*|vadret|verano|invierno|hiver|sommer|inverno|zomer|zima|zime|sommar|vinter|lluvi*|pluie|pleut|regnet|pioggia|piove|chuva|chove|regent|deszcz*|regnar" },
  { gloss: "opinion", en: "what do you think|your opinion|in your opinion|your take|do you think", other: "que piensas|que opinas|en tu opinion|que penses|qu en penses|ton avis|a ton avis|was haltst du|was denkst du|deiner meinung|che ne pensi|cosa ne pensi|secondo te|o que acha|o que voce acha|na sua opiniao|na tua opiniao|wat vind je|wat denk je|co myslisz|co sadzisz|vad tycker du|vad tror du" },
  { gloss: "life feelings", en: "motivat*|procrastinat*|sleep|relationship*|friend*|family|stress*|anxious|nervous|relieved|lonely|sad|happy|vent|career", other: "motivad*|motive*|motivier*|motivat*|dormir|schlaf*|dormire|slapen|spac|sova|sommeil|amigo*|amiga*|ami|amie|amis|freund*|amic*|vriend*|przyjaci*|familia|famille|familie|famiglia|rodzin*|familj*|estres*|nervos*|nerveu*|triste|traurig|verdrietig|smutn*|ledsen|feliz|heureux|glucklich|felice|blij|szczesliw*|lycklig|carrera|carriere|karriere|carriera|carreira|kariera|karriar*" },
  // rag-retrieval
  { gloss: "policy rules", en: "polic*|rule*|regulation*|guideline*", other: "*richtlinie|*richtlinien|*regelung|*regelungen|*beleid|politic*|politiqu*|richtlini*|regel*|reglament*|reglement*|regolament*|regulament*|beleid*|regulamin*|zasad*|polityk*|riktlinj*|normativ*|norma|normas|normes|voorschrift*|policy|policies" },
  { gloss: "handbook documentation", en: "handbook*|manual*|documentation|docs|wiki|intranet|knowledge base|write-up", other: "*handbuch|*handboek|*handbok|manuel*|handbuch*|manuale|handboek*|podrecznik*|instrukcj*|handbok*|documenta*|dokumenta*|documentazion*|wiki|intranet|base de conocimiento|base de connaissances|wissensdatenbank|kennisbank|baza wiedzy|kunskapsbas*" },
  { gloss: "source citation", en: "source|sources|cite|citation*|reference*|quote", other: "fuente|fuentes|citar|cita|quelle|quellen|fonte|fonti|bron|bronnen|zrodl*|kalla|kallor|citeer|cytuj*|citera" },
  { gloss: "contract", en: "contract*|agreement*|addendum|clause*|sla", other: "*vertrag|*vertrages|*vertrage|*contract|contrat*|contrato*|vertrag*|vertrage|contratt*|umow*|avtal*|clausula*|clause|klausel*|clausol*|clausule*|klauzul*|klausul*" },
  { gloss: "according to", en: "according to|what does the|what do the|say about|says about", other: "segun|selon|laut|gemass|secondo|volgens|wedlug|zgodnie z|enligt|conforme|segundo|que dice|que dit|was steht|was sagt|o que diz|cosa dice|wat staat|wat zegt|co mowi|vad sager|vad star" },
  { gloss: "meeting minutes", en: "meeting*|minutes|memo*|transcript*|decid*|decision*|agreed|approved", other: "reunion*|reuniao|reunioes|sitzung*|besprechung*|riunion*|vergadering*|spotkani*|zebrani*|mote|motet|moten|acta|actas|compte rendu|notulen|protokoll*|verbale|protokol*|ata|atas|decidi*|beschlossen|decis*|besloten|zdecydowal*|beslut*|aprob*|approuv*|genehmigt|approvat*|goedgekeurd|zatwierdz*|godkand*" },
  { gloss: "find where", en: "find|where is|where can i find|look up|locate|pull up", other: "encuentr*|buscar|busca|donde esta|trouve*|ou se trouve|ou est|finde*|wo finde|wo steht|wo ist|trova*|dove trovo|dove si trova|dove posso|vind|vinden|waar|znajd*|gdzie|hitta|var finns|var hittar|onde|procurar|procuro" },
  { gloss: "company internal", en: "internal|company|employee*|staff|hr", other: "interno|interna|internos|internas|interne|internen|interner|internes|empresa*|entreprise*|unternehmen*|firma*|aziend*|bedrijf*|foretag*|employe|employes|emplead*|mitarbeiter*|dipendent*|medewerker*|personeel*|pracownik*|anstalld*|funcionari*|personnel|personale" },
  { gloss: "leave expense benefits", en: "vacation day*|leave|parental|expense*|reimburs*|benefit*|travel", other: "vacacion*|conge|conges|urlaub*|ferias|ferie|vakantiedag*|verlof*|urlop*|semesterdag*|gasto*|frais|spesen|despesa*|spese|onkosten|declaratie*|wydatk*|utlagg*|rimbors*|reembols*|rembours*|erstatt*|viaje*|voyage*|reise*|viagem*|viagg*|reis|reizen|podroz*|resa|resor|licenca*|licencia*|elternzeit|ouderschapsverlof" },
  { gloss: "allowed entitled", en: "am i allowed|are we allowed|are employees allowed|am i entitled|are we entitled|entitled to|eligible for|allowed to take|allowed to bring|allowed to work", other: "tengo derecho|tenemos derecho|derecho a|esta permitido|se permite|ai je droit|avons nous droit|droit a|est il permis|est ce permis|habe ich anspruch|anspruch auf|ist es erlaubt|sind erlaubt|erlaubt|ho diritto|abbiamo diritto|diritto a|e permesso|e consentito|tenho direito|temos direito|direito a|e permitido|heb ik recht|recht op|is het toegestaan|toegestaan|przysluguje|czy wolno|wolno nam|har jag ratt|ratt till|ar det tillatet|tillatet" },
  { gloss: "report survey", en: "report*|survey*|findings|conclude*|conclusion*", other: "informe*|rapport*|bericht*|relatorio*|relazion*|raport*|encuesta*|enquete*|umfrage*|sondagg*|pesquisa*|enquete|ankiet*|undersokning*|conclu*|schlussfolger*|conclusie*|wnioski|slutsats*" },
  { gloss: "procedure", en: "procedure*|process for|checklist*|runbook*", other: "procedur*|procedimiento*|verfahren|ablauf|procedura*|procedure|werkwijze|procedura|rutin*|checklist*|lista de verificacion|liste de controle" },
  { gloss: "document pdf", en: "document*|pdf*|paper|papers|article*|slides|deck", other: "documento*|dokument*|articulo*|artikel*|articol*|artigo*|artykul*|diapositiva*|folien" },
  { gloss: "search", en: "search*|look through|lookup", other: "busca*|buscar|cherch*|recherch*|suche|suchen|durchsuch*|such nach|cercare|cerca nei|cerca nel|cerca nella|ricerc*|zoek*|opzoek*|szuk*|wyszuk*|soka|sok efter|pesquis*|procur*" },
  // data-processing
  { gloss: "spreadsheet csv", en: "csv|excel|spreadsheet*|export*|xlsx|json", other: "hoja de calculo|hoja|tableur|planilha*|foglio di calcolo|foglio|rekenblad|arkusz*|kalkylblad*|exportacion|exportation|exportacao|esportazione|eksport*|exporten" },
  { gloss: "table", en: "table|tables|dataset*|dataframe*", other: "*tabelle|*tabellen|*tabel|tabla|tablas|tableau|tableaux|tabelle|tabellen|tabella|tabelle|tabel|tabela|tabeli|tabell|tabellen|tabellerna" },
  { gloss: "rows columns", en: "row|rows|column*|field|fields|cell*", other: "fila|filas|ligne|lignes|zeile*|riga|righe|rij|rijen|linha|linhas|wiersze|wierszy|rader|raderna|columna*|colonne*|spalte*|colonna|kolom*|coluna*|kolumn*|campo|campos|champ|champs|feld|felder|veld|velden|falt|falten" },
  { gloss: "duplicates", en: "duplicat*|dedup*", other: "duplicad*|doublon*|duplikat*|dublett*|dubbel*|duplicat*|duplikat*|dubblett*|repetid*|repetid*" },
  { gloss: "convert transform", en: "convert*|transform*|reformat*|turn this|turn these", other: "conviert*|convert*|konvertier*|umwandel*|wandle*|omzet*|zet om|przekonwertuj*|konwertuj*|zamien*|przeksztalc*|konvertera*|transform*|trasform*|omvandla*|converti*" },
  { gloss: "sum total average count", en: "sum|sums|total*|average*|mean|median|count|how many rows|percentage*", other: "suma*|somme*|summe*|somma*|somar|totaal*|totale|totales|totaux|promedio*|moyenne*|durchschnitt*|gemiddeld*|sredni*|genomsnitt*|contar|compter|zahl|zahle|zahlen|contare|conta|tellen|tel|policz*|zlicz*|rakna*|porcentaje*|pourcentage*|prozent*|percentual*|percentuale|procent*|berechne|calcula|calcule|calcola|bereken|oblicz*|berakna" },
  { gloss: "sort filter group", en: "sort*|filter*|group by|grouped|pivot*|per month|per day|per customer|per region", other: "ordena|ordenar|ordene|ordenado|trie|trier|triez|sortier*|ordina|ordinare|ordinate|sorteer*|sortuj*|posortuj*|filtr*|filtere*|agrup*|regroup*|gruppier*|raggrupp*|groepeer*|pogrupuj*|gruppera*|por mes|par mois|pro monat|per maand|al mese|na miesiac|per manad|por cliente|par client|pro kunde|per cliente|per klant|na klienta|per kund" },
  { gloss: "merge join", en: "merge*|join|combin*|deduplicate", other: "fusion*|fusiona*|zusammenfuhr*|unisci|unire|unir|samenvoeg*|voeg samen|polacz*|scal|scalic|sla ihop|sammanfoga*|mesclar|juntar" },
  { gloss: "data records", en: "data|records|entries|list of", other: "datos|donnees|daten|dati|dados|gegevens|dane|danych|registro*|enregistrement*|datensatz*|datensatze|record|records|rekord*|lista de|liste de|liste mit|lista di|lijst met|lista z|lista med" },
  { gloss: "clean format", en: "clean*|normaliz*|normalis*|standardiz*|format*|lowercase|trim", other: "limpi*|nettoy*|bereinig*|pulir*|pulisc*|opschon*|wyczysc*|oczysc*|rensa*|formato*|formate*|formatier*|formatta*|formaat|formatu*|formatera*|iso" },
  { gloss: "extract parse", en: "extract*|parse|parsing|scrape|scraping", other: "extrae*|extraer|extraire|extrais|extrahier*|estrai*|estrarre|extrair*|extraheer*|wyodrebn*|wyciagnij*|extrahera*|parsear|parsen|parsa*|parsuj*|analysieren" },
  { gloss: "file", en: "file|files", other: "*datei|*dateien|*bestand|*bestanden|archivo*|fichier*|datei*|bestand|bestanden|plik*|filen|filer|arquivo*|ficheiro*" },
];

interface CompiledLexicon {
  exact: Map<string, number[]>;
  prefixes: Map<string, { prefix: string; concept: number }[]>;
  /** Compound heads: words ending in `suffix`, keyed by its last four letters. */
  suffixes: Map<string, { suffix: string; concept: number }[]>;
  phrases: Map<string, { words: string[]; concept: number }[]>;
  english: Set<string>;
}

/** Concepts recognised in a question. */
export interface LexiconMatch {
  /** Indices into the lexicon of every concept found (each once, in order of first occurrence). */
  concepts: number[];
  /** English glosses of concepts found through non-English forms only. */
  glosses: string[];
}

/** A compiled cue lexicon. */
export interface IntentLexicon {
  readonly concepts: readonly IntentLexiconConcept[];
  /** Finds the concepts of a question (bounded by the first 8,000 characters). */
  match(question: string): LexiconMatch;
}

const PREFIX_KEY = 4;

/** Compiles a cue lexicon (see {@link DEFAULT_INTENT_LEXICON}) into hash maps; forms are accent-folded like the questions. */
export function compileIntentLexicon(concepts: readonly IntentLexiconConcept[] = DEFAULT_INTENT_LEXICON): IntentLexicon {
  const compiled: CompiledLexicon = { exact: new Map(), prefixes: new Map(), suffixes: new Map(), phrases: new Map(), english: new Set() };
  concepts.forEach((concept, index) => {
    const add = (form: string, english: boolean) => {
      const folded = foldText(form.replace(/\*$/, "").replace(/^\*/, ""));
      const words = splitWords(folded);
      if (words.length === 0) return;
      const key = `${index}`;
      if (form.startsWith("*")) {
        const suffix = words[0]!;
        if (words.length !== 1 || suffix.length < PREFIX_KEY) return;
        const list = compiled.suffixes.get(suffix.slice(-PREFIX_KEY)) ?? [];
        list.push({ suffix, concept: english ? -1 - index : index });
        compiled.suffixes.set(suffix.slice(-PREFIX_KEY), list);
        return;
      }
      if (english) compiled.english.add(`${key}|${words.join(" ")}${form.endsWith("*") ? "*" : ""}`);
      if (words.length > 1) {
        const list = compiled.phrases.get(words[0]!) ?? [];
        list.push({ words, concept: english ? -1 - index : index });
        compiled.phrases.set(words[0]!, list);
      } else if (form.endsWith("*") && words[0]!.length >= PREFIX_KEY) {
        const prefix = words[0]!;
        const list = compiled.prefixes.get(prefix.slice(0, PREFIX_KEY)) ?? [];
        list.push({ prefix, concept: english ? -1 - index : index });
        compiled.prefixes.set(prefix.slice(0, PREFIX_KEY), list);
      } else {
        const list = compiled.exact.get(words[0]!) ?? [];
        list.push(english ? -1 - index : index);
        compiled.exact.set(words[0]!, list);
      }
    };
    for (const form of concept.en.split("|")) if (form.trim()) add(form.trim(), true);
    for (const form of concept.other.split("|")) if (form.trim()) add(form.trim(), false);
  });
  return {
    concepts,
    match(question) {
      const { words } = foldedWords(question);
      const viaEnglish = new Set<number>();
      const viaOther = new Set<number>();
      const order: number[] = [];
      const hit = (code: number) => {
        const english = code < 0;
        const index = english ? -1 - code : code;
        if (!viaEnglish.has(index) && !viaOther.has(index)) order.push(index);
        (english ? viaEnglish : viaOther).add(index);
      };
      for (let i = 0; i < words.length; i++) {
        const word = words[i]!;
        const exact = compiled.exact.get(word);
        if (exact) for (const code of exact) hit(code);
        if (word.length > PREFIX_KEY + 2) {
          // A compound whose head is a known form (at least three letters of modifier before it).
          const heads = compiled.suffixes.get(word.slice(-PREFIX_KEY));
          if (heads) for (const { suffix, concept } of heads) if (word.length >= suffix.length + 3 && word.endsWith(suffix)) hit(concept);
        }
        if (word.length >= PREFIX_KEY) {
          const candidates = compiled.prefixes.get(word.slice(0, PREFIX_KEY));
          if (candidates) for (const { prefix, concept } of candidates) if (word.startsWith(prefix)) hit(concept);
        }
        const phrases = compiled.phrases.get(word);
        if (phrases) {
          for (const { words: phrase, concept } of phrases) {
            let ok = i + phrase.length <= words.length;
            for (let j = 1; ok && j < phrase.length; j++) ok = words[i + j] === phrase[j];
            if (ok) hit(concept);
          }
        }
      }
      return { concepts: order, glosses: order.filter((c) => !viaEnglish.has(c)).map((c) => concepts[c]!.gloss) };
    },
  };
}

/**
 * SHA-256 (hex) of a cue lexicon; a trained model stores the hash of the lexicon its features were computed with, so a test can tell when the lexicon changed but the model was not retrained.
 */
export function hashIntentLexicon(concepts: readonly IntentLexiconConcept[] = DEFAULT_INTENT_LEXICON): string {
  const hash = createHash("sha256");
  for (const { gloss, en, other } of concepts) hash.update(gloss).update("\t").update(en).update("\t").update(other).update("\n");
  return hash.digest("hex");
}
