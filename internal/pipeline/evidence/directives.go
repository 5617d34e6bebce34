package evidence

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// directiveLanguage is one language's row of directiveTable. Every entry is a regular
// expression fragment in the folded form the checks read (see detectionForm: lower case,
// accents dropped, look-alike letters mapped), so "précédentes" is written "precedentes".
type directiveLanguage struct {
	// Language is the ISO 639-1 code.
	Language string
	// Commands are imperative verbs (or verb phrases) that open a clause addressed to the reader
	// or the model: the clause goes with them. A verb that is also a common noun of the
	// language (French "marque", Spanish "trata", German "Druck") is written with the object
	// that makes it a command, so that a noun phrase about a claim is left alone.
	Commands []string
	// Phrases mark the sentence they stand in as a directive wherever they stand ("you are
	// now", "the above instructions", "system prompt"): the sentence goes.
	Phrases []string
	// URLVerbs send the reader to a page; they go with the URL after them.
	URLVerbs []string
	// Fillers may stand between a clause's start and its command ("please", "now").
	Fillers []string
	// QuestionWords open a question of the language ("quand", "wann", "hoeveel"): a query with
	// one is an open question, not a statement.
	QuestionWords string
}

// directiveTable is the one list of directive words of the query checks, one row per language
// the project writes queries in with stemming (at least en, fr, de, es, it, pt, nl). Add a
// language by adding a row and its test case in directives_test.go.
var directiveTable = []directiveLanguage{
	{
		Language:      "en",
		QuestionWords: "what which who whom whose when where why how",
		Commands: []string{`ignore`, `disregard`, `forget`, `override`, `bypass`, `run`, `execute`, `eval`, `reveal`, `print`,
			`output`, `echo`, `say`, `write`, `respond`, `reply`, `return`, `mark`, `label`, `flag`, `rate`, `add`, `include`,
			`insert`, `append`, `delete`, `remove`, `erase`, `send`, `e-?mail`, `post`, `upload`, `download`, `install`, `visit`,
			`open`, `fetch`, `browse`, `navigate`, `click`, `call`, `invoke`, `pretend`, `imagine`, `assume`, `switch`, `enable`,
			`activate`, `disable`, `leak`, `repeat`, `stop`, `cite`, `use\s+(?:only|the|this|these|my|source|sources)`, `translate`, `rewrite`, `obey`,
			`act\s+(?:as|like)`, `go\s+to`, `roleplay`, `role-play`, `role\s+play`,
			`answer\s+(?:only|with|high|medium|low|yes|no|supported|true|verified)`, `tell\s+(?:the\s+user|them|everyone|the\s+reader|the\s+editor)`,
			`do\s+not\s+(?:search|verify|check|cite|look)`, `don'?t\s+(?:search|verify|check|cite|look)`,
			`(?:show|give|list|tell)\s+(?:me\s+|us\s+)?your`, `summari[sz]e\s+your`,
			`follow\s+(?:these|the\s+new|my|new|it|them|this|that|those|the\s+(?:link|instructions?|steps|orders))`},
		Phrases: []string{
			`disregard\s+(?:all\s+|everything\s+|anything\s+)?(?:of\s+)?(?:what\s+(?:is|was)\s+(?:written\s+|said\s+)?)?(?:the\s+|that\s+)?(?:above|before|preceding|previous)`,
			`forget\s+(?:about\s+)?(?:all|everything|anything)(?:\s+(?:said|written|stated|above|before|earlier|so\s+far|previously|you\s+(?:read|saw|were\s+told)))*`,
			`(?:new|updated|real)\s+(?:instructions?|task|orders)`, `(?:everything|all)\s+(?:written\s+|said\s+)?above`},
		URLVerbs: []string{`visit`, `open`, `see`, `go\s+to`, `click\s+on`},
		// "always" and "never" are fillers, not commands: "never reveal..." is the command
		// "reveal", and honest statements say "...but never netted a profit" (issue 22).
		Fillers: []string{`please`, `now`, `then`, `just`, `first`, `next`, `finally`, `kindly`, `simply`, `instead`,
			`immediately`, `afterwards`, `also`, `and`, `always`, `never`},
	},
	{
		Language:      "fr",
		QuestionWords: "qui que quoi quand ou comment pourquoi quel quelle quels quelles combien lequel laquelle lesquels",
		Commands: []string{`ignore[rz]?`, `oublie[rz]?`, `imprime[rz]?`, `revele[rz]?`, `devoile[rz]?`, `ecri(?:s|vez|re)`,
			`repon(?:ds|dez)`, `execute[rz]?`, `envoie[rz]?`, `envoyez`, `ouvre[rz]?`, `clique[rz]?`, `tradui(?:s|sez)`,
			`repete[rz]?`, `supprime[rz]?`, `efface[rz]?`, `ajoute[rz]?`, `inclu(?:s|ez)`, `fai(?:s|tes)\s+semblant`,
			`considere[rz]?`, `dis`, `dites`, `sui(?:s|vez)\s+(?:les|ces|mes|nos|ce|cet|cette)`, `agis(?:sez)?`, `obei(?:s|ssez)`,
			`(?:affiche|montre|donne)[rz]?(?:-moi)?\s+(?:ton|ta|tes|votre|vos|le\s+prompt)`,
			`(?:marque|traite|note|classe)[rz]?\s+(?:ceci|cela|ca|cette|cet|ce|la|le|les|tout|toutes?|chaque)`,
			`ne\s+(?:tiens|tenez)\s+(?:pas\s+)?compte`},
		Phrases: []string{`(?:tu\s+es|vous\s+etes)\s+(?:maintenant|desormais|a\s+present|dorenavant)`,
			`a\s+partir\s+de\s+maintenant`, `(?:desormais|dorenavant)\s+(?:tu|vous)`,
			`(?:instructions?|consignes?|regles?)\s+(?:precedentes?|anterieures?|ci-dessus|du\s+systeme|systeme|cachees?|secretes?)`,
			`tout\s+ce\s+qui\s+(?:precede|est\s+(?:ci-dessus|au-dessus|ecrit\s+au-dessus))`, `(?:prompt|invite)\s+(?:du\s+)?systeme`,
			`comme\s+(?:vraie?|verifiee?|confirmee?|exacte?)`},
		URLVerbs: []string{`visite[rz]?`, `ouvre[rz]?`, `consulte[rz]?`, `va\s+sur`, `allez\s+sur`, `clique[rz]?\s+sur`},
		Fillers:  []string{`s'?il\s+(?:te|vous)\s+plait`, `maintenant`, `ensuite`, `puis`, `tu\s+dois`, `vous\s+devez`},
	},
	{
		Language:      "de",
		QuestionWords: "wer wen wem wessen was wann wo wie warum welche welcher welches welchen wieso weshalb woher wohin wieviel wieviele",
		Commands: []string{`ignorier(?:e|en\s+sie)`, `vergiss`, `vergessen\s+sie`, `gib`, `geben\s+sie`, `drucke`, `drucken\s+sie`,
			`enthull(?:e|en\s+sie)`, `verrate`, `verraten\s+sie`, `markier(?:e|en\s+sie)`, `schreib(?:e|en\s+sie)?`,
			`antworte`, `antworten\s+sie`, `fuhr(?:e|en\s+sie)`, `sende`, `senden\s+sie`, `schicke`, `schicken\s+sie`, `offne`,
			`offnen\s+sie`, `klicke`, `klicken\s+sie`, `ubersetz(?:e|en\s+sie)`, `wiederhol(?:e|en\s+sie)`, `losche`,
			`loschen\s+sie`, `fug(?:e|en\s+sie)`, `tu\s+so`, `tun\s+sie\s+so`, `betracht(?:e|en\s+sie)`, `behandl(?:e|en\s+sie)`,
			`gehorche`, `befolge`, `sag`, `sagen\s+sie`, `(?:zeig|zeige|zeigen\s+sie)(?:\s+mir)?\s+(?:dein|deine|ihren|ihre|den\s+prompt)`},
		Phrases: []string{`(?:du\s+bist|sie\s+sind|ihr\s+seid)\s+(?:jetzt|nun|ab\s+sofort|ab\s+jetzt)`, `ab\s+jetzt`, `von\s+nun\s+an`,
			`(?:vorherigen|vorigen|bisherigen|obigen|fruheren|alle|deine|ihre|versteckten|geheimen)\s+(?:anweisungen|instruktionen|befehle|regeln|vorgaben)`,
			`alles\s+(?:oben|obige|vorherige|bisherige|bisher|davor)`, `system-?prompt`, `systemanweisung(?:en)?`,
			`als\s+(?:wahr|bestatigt|verifiziert|richtig|korrekt)`},
		URLVerbs: []string{`besuche`, `besuchen\s+sie`, `offne`, `offnen\s+sie`, `geh(?:e)?\s+(?:auf|zu)`, `klicke\s+auf`, `rufe`},
		Fillers:  []string{`bitte`, `jetzt`, `nun`, `dann`, `danach`, `du\s+musst`, `sie\s+mussen`},
	},
	{
		Language:      "es",
		QuestionWords: "que quien quienes cual cuales cuando donde como cuanto cuantos cuanta cuantas",
		Commands: []string{`ignora`, `ignoren`, `olvida`, `olvide`, `olviden`, `imprime`, `imprima`, `revela`, `revele`, `escribe`,
			`escriba`, `responde`, `responda`, `ejecuta`, `ejecute`, `envia`, `envie`, `abre`, `haz\s+clic`, `haga\s+clic`,
			`traduce`, `traduzca`, `repite`, `repita`, `borra`, `borre`, `elimina`, `elimine`, `anade`, `anada`, `agrega`,
			`agregue`, `incluye`, `incluya`, `finge`, `finja`, `simula`, `simule`, `dime\s+tu`, `diga`, `obedece`,
			`(?:muestra|muestrame|muestre|ensena|ensename)\s+(?:tu|tus|su|sus|el\s+prompt)`,
			`(?:marca|marque|trata|trate|considera|considere|califica)\s+(?:esto|esta|este|todo|todas?|cada|la\s+afirmacion)`},
		Phrases: []string{`ahora\s+(?:eres|es\s+usted|sois)`, `(?:a\s+partir\s+de|desde)\s+ahora`, `de\s+ahora\s+en\s+adelante`,
			`(?:instrucciones|indicaciones|reglas|ordenes)\s+(?:anteriores|previas|del\s+sistema|ocultas|secretas|de\s+arriba)`,
			`todo\s+lo\s+(?:anterior|de\s+arriba|que\s+precede)`, `prompt\s+del\s+sistema`,
			`como\s+(?:verdadero|verdadera|verificado|verificada|confirmado|confirmada|cierto|cierta)`},
		URLVerbs: []string{`visita`, `visite`, `abre`, `abra`, `ve\s+a`, `vaya\s+a`, `consulta`, `consulte`, `entra\s+en`},
		Fillers:  []string{`por\s+favor`, `ahora`, `luego`, `despues`, `debes`, `tienes\s+que`},
	},
	{
		Language:      "it",
		QuestionWords: "chi che cosa quando dove come perche quale quali quanto quanti quanta quante",
		Commands: []string{`ignora`, `ignorate`, `dimentica`, `dimenticate`, `rivela`, `rivelate`, `rivelami`, `scrivi`, `scrivete`,
			`rispondi`, `rispondete`, `esegui`, `eseguite`, `invia`, `inviate`, `manda`, `mandate`, `apri`, `aprite`, `clicca`,
			`cliccate`, `traduci`, `traducete`, `ripeti`, `ripetete`, `cancella`, `cancellate`, `elimina`, `eliminate`, `aggiungi`,
			`aggiungete`, `includi`, `includete`, `fingi`, `fingete`, `fai\s+finta`, `obbedisci`,
			`(?:mostra|mostrami|mostrate|stampa|stampami)\s+(?:il\s+tuo|la\s+tua|i\s+tuoi|le\s+tue|tuo|tua|il\s+prompt)`,
			`(?:segna|contrassegna|tratta|considera|considerate|classifica)\s+(?:questo|questa|tutto|tutte|ogni|la\s+affermazione|come)`},
		Phrases: []string{`(?:ora|adesso)\s+(?:sei|siete|lei\s+e)`, `(?:d['’]?ora|da\s+ora|da\s+adesso)\s+in\s+(?:poi|avanti)`,
			`(?:istruzioni|indicazioni|regole)\s+(?:precedenti|di\s+sistema|del\s+sistema|nascoste|segrete|sopra)`,
			`tutto\s+(?:quanto\s+|cio\s+che\s+e\s+(?:scritto\s+)?)?(?:sopra|precede)`, `prompt\s+di\s+sistema`,
			`come\s+(?:vero|vera|verificato|verificata|confermato|confermata)`},
		URLVerbs: []string{`visita`, `visitate`, `apri`, `aprite`, `vai\s+(?:su|a)`, `consulta`},
		Fillers:  []string{`per\s+favore`, `ora`, `adesso`, `poi`, `dopo`, `devi`},
	},
	{
		Language:      "pt",
		QuestionWords: "quem que qual quais quando onde como porque quanto quantos quanta quantas",
		Commands: []string{`ignore`, `ignorem`, `esqueca`, `esquece`, `esquecam`, `imprima`, `revele`, `revela`, `escreva`, `responda`,
			`execute`, `executa`, `envie`, `abra`, `clique`, `traduza`, `repita`, `apague`, `exclua`, `adicione`, `acrescente`,
			`inclua`, `finja`, `diga`, `obedeca`,
			`(?:mostre|mostra|exiba)(?:-me)?\s+(?:o\s+seu|a\s+sua|os\s+seus|as\s+suas|seu|sua|o\s+prompt)`,
			`(?:marque|trate|considere|classifique)\s+(?:isto|isso|esta|este|tudo|todas?|cada|a\s+afirmacao)`},
		Phrases: []string{`agora\s+(?:voce\s+e|es|tu\s+es)`, `a\s+partir\s+de\s+agora`, `de\s+agora\s+em\s+diante`,
			`(?:instrucoes|regras|ordens)\s+(?:anteriores|previas|do\s+sistema|ocultas|secretas|acima)`,
			`tudo\s+(?:o\s+que\s+(?:esta|foi\s+dito)\s+)?acima`, `prompt\s+do\s+sistema`,
			`como\s+(?:verdadeiro|verdadeira|verificado|verificada|confirmado|confirmada)`},
		URLVerbs: []string{`visite`, `visita`, `abra`, `acesse`, `acessa`, `va\s+para`, `consulte`},
		Fillers:  []string{`por\s+favor`, `agora`, `depois`, `voce\s+deve`},
	},
	{
		Language:      "nl",
		QuestionWords: "wie wat wanneer waar hoe waarom welke welk hoeveel",
		Commands: []string{`negeer`, `vergeet`, `druk\s+af`, `onthul`, `markeer`, `schrijf`, `voer`, `stuur`, `klik`, `vertaal`,
			`herhaal`, `verwijder`, `voeg`, `doe\s+alsof`, `beschouw`, `behandel`, `zeg`, `gehoorzaam`, `volg\s+(?:deze|de\s+nieuwe)`,
			`antwoord\s+(?:met|alleen|enkel|dat|hoog|ja|nee)`, `(?:toon|laat)\s+(?:me\s+)?(?:je|jouw|uw|de\s+systeem)`},
		Phrases: []string{`(?:je|jij|u)\s+bent\s+nu`, `vanaf\s+nu`, `van\s+nu\s+af\s+aan`, `voortaan`,
			`(?:vorige|eerdere|bovenstaande|alle|verborgen|geheime)\s+(?:instructies|opdrachten|regels|aanwijzingen)`,
			`alles\s+(?:hierboven|wat\s+hierboven\s+staat|daarvoor)`, `systeem-?prompt`,
			`als\s+(?:waar|bevestigd|geverifieerd|juist|correct)`},
		URLVerbs: []string{`bezoek`, `open`, `ga\s+naar`, `klik\s+op`, `raadpleeg`},
		Fillers:  []string{`alsjeblieft`, `alstublieft`, `nu`, `daarna`, `dan`, `je\s+moet`, `u\s+moet`},
	},
}

// tableAlternation joins one column of directiveTable into a regular expression alternation.
func tableAlternation(column func(directiveLanguage) []string) string {
	var all []string
	for _, l := range directiveTable {
		all = append(all, column(l)...)
	}
	return `(?:` + strings.Join(all, `|`) + `)`
}

// questionWords are the question words of every row of directiveTable.
var questionWords = func() map[string]bool {
	set := map[string]bool{}
	for _, l := range directiveTable {
		for w := range text.WordSet(l.QuestionWords) {
			set[w] = true
		}
	}
	return set
}()

// afterURLFiller is an adverb that a command to visit a URL takes after the URL ("now").
var afterURLFiller = regexp.MustCompile(`(?i)^\s*` + tableAlternation(func(l directiveLanguage) []string { return l.Fillers }) + `\b`)

func urlVerbs() string {
	return tableAlternation(func(l directiveLanguage) []string { return l.URLVerbs })
}

// clauseStartAll is where a command can begin in any language of directiveTable: the start,
// after punctuation, or after a connective, with the table's fillers and the English "you
// must" forms after it.
var clauseStartAll = `(?:^|[.;:!?,(\[{"“”‘’\n]\s*|\b(?:and|then|but|also|now|so|or|plus|et|puis|und|dann|luego|poi|depois)\s+)` +
	`(?:(?:` + tableAlternation(func(l directiveLanguage) []string { return l.Fillers }) +
	`|let'?s|let\s+us|you\s+must|you\s+should|you\s+will|you\s+need\s+to|make\s+sure\s+to|be\s+sure\s+to|remember\s+to|don'?t\s+forget\s+to)\s+)*`

var (
	// tableCommands: a command of any language at the start of a clause, with the rest of its
	// clause.
	// The command itself is group 1, for notADirective.
	tableCommands = regexp.MustCompile(`(?i)` + clauseStartAll +
		`(` + tableAlternation(func(l directiveLanguage) []string { return l.Commands }) + `)(?:\s` + clauseRest + `|$|[.;!?,\n])`)
	// gluedCommand: a command of any language inside a clause, with the rest of its sentence
	// (see stripGluedCommands).
	gluedCommand = regexp.MustCompile(`(?i)\b(` + tableAlternation(func(l directiveLanguage) []string { return l.Commands }) +
		`)\b` + sentenceRest)
	// tablePhrases: the whole sentence a directive phrase of any language stands in.
	tablePhrases = regexp.MustCompile(`(?i)(?:^|[.;!?\n]\s*)[^.;!?\n]*?\b` +
		tableAlternation(func(l directiveLanguage) []string { return l.Phrases }) + `\b` + sentenceRest)
)

// commandMatch returns the [start, end) in d (the detection form of s, offsets off) of the first
// match of re whose directive word (group 1, at [from, to) of s) exempt does not clear (the
// words of a title, a name or the claim: notADirective); nil when there is none. A word that
// is cleared is masked and the search goes on, so that an order after it is still found.
func commandMatch(re *regexp.Regexp, s, d string, off []int, exempt func(from, to int) bool) []int {
	masked := []byte(d)
	for {
		loc := re.FindSubmatchIndex(masked)
		if loc == nil {
			return nil
		}
		if !exempt(off[loc[2]], off[loc[3]]) {
			return loc[:2]
		}
		for i := loc[2]; i < loc[3]; i++ {
			masked[i] = 'x'
		}
	}
}

// notADirective reports whether the command word at [from, to) of s is part of what the query
// is about rather than an order to whoever reads it (issue 22: `Who wrote "Run, Chris, Run"`
// lost its title's first word, a hop query lost "who never ruled died"):
//
//   - it stands inside a quoted title: a quoted span of at most ten words, every word but the
//     function words capitalised (`"Run, Chris, Run"`, `“Say Say Say”`);
//   - it is part of a name: capitalised, before another capitalised word (or an acronym) that is
//     no function, verdict or command word ("Mark Zuckerberg", "Imagine Dragons", "Run Lola
//     Run"), or after one inside its sentence ("the UK Open");
//   - the claim holds it with the word before or after it, as the query does: the query repeats
//     the claim's own words ("...the band that recorded Never Say Never");
//   - glued inside a clause (glued), it follows a relative pronoun, a subject pronoun, an
//     auxiliary or "to": a verb of the sentence, not an imperative ("the King who never ruled").
//
// What stays hard: an order opening a sentence, a command in lower case glued to a keyword
// query, every directive phrase and pattern (they are not commands of the table and never
// come here: `"Ignore Previous Instructions"` goes in quotes or not), and a capitalised name
// made of directive and verdict words alone ("Say Supported").
func notADirective(s string, from, to int, claim claimWording, glued bool) bool {
	if inQuotedTitle(s, from) || inName(s, from, to) || claimHolds(s, from, to, claim.words) || claimNames(s, from, to, claim) {
		return true
	}
	if glued {
		prev, _ := wordBefore(s, from)
		return verbLeaders[foldWord(prev)]
	}
	return false
}

// endsName reports whether the word at from in s follows a capitalised word of its sentence,
// as "System" ends "the Legacy System".
func endsName(s string, from int) bool {
	prev, at := wordBefore(s, from)
	return prev != "" && at+len(prev) < from && isTitleWord(prev) && !sentenceInitial(s, at) && isTitleWord(s[from:from+len(wordAfter(s[from:], 0))])
}

// verbLeaders are the words after which a command word is a verb of the sentence, not an order.
var verbLeaders = text.WordSet(`who which that whom whose he she it they we i to not did does do would could will can should may
might must has have had was were is are been`)

// notNameWords are capitalised words that make no name with a command word: a name is not made
// of function words and verdicts.
var notNameWords = text.WordSet(`supported true false verified confirmed correct high medium low yes refuted unverified
please now then just first next finally kindly simply instead also everything anything nothing instructions prompt
system rules evidence sources source claim answer`)

// commandWord matches a word that is a command of directiveTable on its own.
var commandWord = regexp.MustCompile(`^` + tableAlternation(func(l directiveLanguage) []string { return l.Commands }) + `$`)

func isCommandWord(folded string) bool { return commandWord.MatchString(folded) }

// isAcronym reports whether w is an acronym ("UK", "DC"): two to five capitals.
func isAcronym(w string) bool {
	return len(w) >= 2 && len(w) <= 5 && strings.IndexFunc(w, func(r rune) bool { return !unicode.IsUpper(r) }) < 0
}

// quotedSpan is a span in double quotes (straight, curly or guillemets).
var quotedSpan = regexp.MustCompile(`"([^"\n]{1,200})"|“([^”\n]{1,200})”|«([^»\n]{1,200})»`)

// inQuotedTitle reports whether at is inside a quoted title of s (see notADirective).
func inQuotedTitle(s string, at int) bool {
	for _, loc := range quotedSpan.FindAllStringSubmatchIndex(s, -1) {
		for g := 2; g+1 < len(loc); g += 2 {
			if loc[g] < 0 || at < loc[g] || at >= loc[g+1] {
				continue
			}
			words := strings.FieldsFunc(s[loc[g]:loc[g+1]], func(r rune) bool { return unicode.IsSpace(r) || r == ',' || r == ':' })
			if len(words) > 10 {
				return false
			}
			for _, w := range words {
				w = text.TrimToWord(w)
				if w != "" && !namesNothing(foldWord(w)) && !isTitleWord(w) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// inName reports whether the command word at [from, to) of s is part of a name (see
// notADirective).
func inName(s string, from, to int) bool {
	if !isTitleWord(s[from:to]) {
		return false
	}
	isNamePart := func(w string) bool {
		f := foldWord(w)
		return w != "" && (isTitleWord(w) || isAcronym(w)) && !notNameWords[f] && !namesNothing(f) && !isCommandWord(f)
	}
	if isNamePart(wordAfter(s, to)) {
		return true
	}
	// The word before counts when it is not capitalised only for opening its sentence.
	prev, prevAt := wordBefore(s, from)
	return !sentenceInitial(s, from) && isNamePart(prev) && !sentenceInitial(s, prevAt)
}

// claimHolds reports whether the claim's words hold the command word at [from, to) of s
// together with the word before or after it in s.
func claimHolds(s string, from, to int, claim []string) bool {
	if len(claim) == 0 {
		return false
	}
	cmd := wordsOf(s[from:to])
	prev, _ := wordBefore(s, from)
	next := wordAfter(s, to)
	for _, run := range [][]string{append([]string{foldWord(prev)}, cmd...), append(append([]string{}, cmd...), foldWord(next))} {
		if len(run) < 2 || run[0] == "" || run[len(run)-1] == "" {
			continue
		}
		for i := 0; i+len(run) <= len(claim); i++ {
			if slices.Equal(claim[i:i+len(run)], run) {
				return true
			}
		}
	}
	return false
}

// claimWording is how the directive rules read the claim a query checks: its words (wordsOf),
// and its names, the words it capitalises after its first ("The album Imagine was released"),
// folded.
type claimWording struct {
	words []string
	names map[string]bool
}

// wordingOf reads claim for the directive rules; "" gives the zero claimWording.
func wordingOf(claim string) claimWording {
	w := claimWording{words: wordsOf(claim), names: map[string]bool{}}
	for i, word := range text.Tokens(text.CleanUntrusted(claim), "'") {
		if i > 0 && text.IsCapitalised(word) {
			w.names[foldWord(word)] = true
		}
	}
	return w
}

// claimNames reports whether the command word at [from, to) of s is capitalised, a name of the
// claim, and followed by a content word, as a name heading a keyword query is: the claim's "The
// album Imagine was released in 1971" makes "Imagine album 1971 release" a search for the
// album, while "imagine you are free" and "Run the installer" (the claim's title "Run, Chris,
// Run") are still orders, an order's object opening with a function word.
func claimNames(s string, from, to int, claim claimWording) bool {
	word := s[from:to]
	next := foldWord(wordAfter(s, to))
	return text.IsCapitalised(word) && claim.names[foldWord(word)] && next != "" && !text.IsAnyStopWord(next)
}

// wordsOf returns the folded, accent-free words of s, in order.
func wordsOf(s string) []string {
	d, _ := detectionForm(s)
	return text.Tokens(d, "'")
}

func foldWord(w string) string {
	if ws := wordsOf(w); len(ws) > 0 {
		return ws[0]
	}
	return ""
}

// wordBefore returns the word before at in s (past spaces and one comma) and where it starts.
func wordBefore(s string, at int) (string, int) {
	end := strings.TrimRight(s[:at], " \t")
	end = strings.TrimRight(strings.TrimSuffix(end, ","), " \t")
	start := strings.LastIndexFunc(end, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '-' })
	if start < 0 {
		start = 0
	} else {
		_, size := utf8.DecodeRuneInString(end[start:])
		start += size
	}
	return end[start:], start
}

// wordAfter returns the word after to in s (past spaces and one comma).
func wordAfter(s string, to int) string {
	rest := strings.TrimLeft(s[to:], " \t")
	rest = strings.TrimLeft(strings.TrimPrefix(rest, ","), " \t")
	if i := strings.IndexFunc(rest, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '-' }); i >= 0 {
		return rest[:i]
	}
	return rest
}

// isTitleWord reports whether w is capitalised as a name is: an upper-case first letter and
// not all in capitals (shouting is no name).
func isTitleWord(w string) bool {
	r, size := utf8.DecodeRuneInString(w)
	if !unicode.IsUpper(r) {
		return false
	}
	return size == len(w) || strings.ContainsFunc(w[size:], unicode.IsLower)
}

// sentenceInitial reports whether the word at at opens its sentence in s.
func sentenceInitial(s string, at int) bool {
	before := strings.TrimRightFunc(s[:at], func(r rune) bool { return unicode.IsSpace(r) || text.IsQuoteMark(r) || r == '(' || r == '[' })
	if before == "" {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(before)
	return strings.ContainsRune(".!?;:\n", r)
}
