package telemetry

import "strings"

// redactedText replaces every secret Redact finds.
const redactedText = "[REDACTED]"

// Redact returns s with secrets replaced by "[REDACTED]": token-shaped
// secrets (GitHub, AWS key ids, Slack, OpenAI/Anthropic keys), PEM private
// key blocks, URL passwords, Authorization/Bearer credentials, password and
// token flags, mysql-style -p passwords and NAME=value assignments whose name
// says it holds a secret.
//
// It is written for command lines recorded on every tool call: a cheap byte
// scan decides which passes can match at all, each pass searches for a
// literal before doing any work, a string with no candidate is returned
// without allocating, and nothing is compiled at package init. Redact never
// panics, accepts invalid UTF-8 (bytes are copied as they are) and is
// idempotent: Redact(Redact(s)) == Redact(s).
func Redact(s string) string {
	// Apply the passes until nothing changes. A placeholder can change how a
	// later round reads the line (a redacted quoted value may have hidden a
	// quote or a command separator), so one round is not always a fixed
	// point. Rounds only ever add placeholders; in practice the second round
	// finds nothing, and a line without secrets takes one round (an
	// unchanged pass returns the same string, so the comparison is cheap).
	for range 8 {
		r := redactRound(s)
		if r == s {
			break
		}
		s = r
	}
	return s
}

// redactRound runs every pass once.
func redactRound(s string) string {
	// Order matters: block- and token-shaped secrets go first so that the
	// context-based passes after them (which redact "the next word") see the
	// placeholder rather than half a token.
	//
	// One branch-free pass records which trigger bytes occur; a pass whose
	// trigger is absent cannot match and is skipped, so a typical command
	// costs this loop and a few vectorised searches.
	m := rdTriggers(s)
	if m&rdBitBigB != 0 {
		s = rdPEM(s)
	}
	if m&(rdBitK|rdBitX|rdBitBigA|rdBitUnder) != 0 {
		s = rdTokens(s)
	}
	if m&rdBitAt != 0 {
		s = rdURLPasswords(s)
	}
	if m&rdBitZ != 0 {
		s = rdAuthorization(s)
	}
	if m&rdBitB != 0 {
		s = rdBearer(s)
	}
	if m&(rdBitY|rdBitB|rdBitH) != 0 {
		s = rdShortP(s)
	}
	// Every flag or assignment name the last two passes redact contains one
	// of a few words (see rdHasSecretWord).
	if m&(rdBitK|rdBitW|rdBitC|rdBitZ|rdBitP) != 0 && rdHasSecretWord(s, m) {
		s = rdFlagValues(s)
		s = rdAssignments(s)
	}
	return s
}

// rdTriggers ORs the trigger bits of every byte of s. Four independent
// accumulators let the CPU overlap the table loads.
func rdTriggers(s string) uint16 {
	var m0, m1, m2, m3 uint16
	i := 0
	for ; i+4 <= len(s); i += 4 {
		m0 |= rdTrigger[s[i]]
		m1 |= rdTrigger[s[i+1]]
		m2 |= rdTrigger[s[i+2]]
		m3 |= rdTrigger[s[i+3]]
	}
	for ; i < len(s); i++ {
		m0 |= rdTrigger[s[i]]
	}
	return m0 | m1 | m2 | m3
}

// Trigger bits: a byte each pass cannot match without.
const (
	rdBitBigB  = 1 << iota // 'B' of -----BEGIN
	rdBitB                 // b/B of bearer, mariadb
	rdBitK                 // k/K of sk-, token, key
	rdBitX                 // x of xox
	rdBitBigA              // A of AKIA, ASIA
	rdBitUnder             // _ of ghp_, github_pat_
	rdBitAt                // @ of user:pass@host
	rdBitZ                 // z/Z of authorization
	rdBitY                 // y of mysql
	rdBitH                 // h of sshpass
	rdBitW                 // w/W of pwd
	rdBitC                 // c/C of secret
	rdBitP                 // p/P of pass
)

// rdTrigger maps a byte to its trigger bits. It is a composite literal of
// constants, so it is laid out at compile time and costs nothing at init.
var rdTrigger = [256]uint16{
	'B': rdBitBigB | rdBitB, 'b': rdBitB,
	'K': rdBitK, 'k': rdBitK,
	'x': rdBitX,
	'A': rdBitBigA,
	'_': rdBitUnder,
	'@': rdBitAt,
	'Z': rdBitZ, 'z': rdBitZ,
	'y': rdBitY,
	'h': rdBitH,
	'W': rdBitW, 'w': rdBitW,
	'C': rdBitC, 'c': rdBitC,
	'P': rdBitP, 'p': rdBitP,
}

// rdHasSecretWord reports whether s may hold a secret flag or NAME=value
// (see rdIsSecretFlag and rdIsSecretName), scanning only for the anchor
// letters present in the trigger mask m.
func rdHasSecretWord(s string, m uint16) bool {
	return m&rdBitK != 0 && rdFoldScan(s, 'k', func(p int) bool { return rdFoldAt(s, p-2, "token") || rdFoldAt(s, p, "key") }) ||
		m&rdBitW != 0 && rdFoldScan(s, 'w', func(p int) bool { return rdFoldAt(s, p-1, "pwd") }) ||
		m&rdBitC != 0 && rdFoldScan(s, 'c', func(p int) bool { return rdFoldAt(s, p-2, "secret") }) ||
		m&rdBitZ != 0 && rdFoldScan(s, 'z', func(p int) bool { return rdFoldAt(s, p-7, "authorization") }) ||
		m&rdBitP != 0 && rdIndexFold(s, "pass", 0) >= 0
}

// rdEdits builds the output of one pass lazily, so a pass that finds nothing
// returns its input without allocating.
type rdEdits struct {
	b    strings.Builder
	last int
	used bool
}

// replace copies s[last:start] and then the placeholder for s[start:end].
func (e *rdEdits) replace(s string, start, end int) {
	if start < e.last || end < start || end > len(s) {
		return // defensive: overlapping edits are dropped, never panic
	}
	if !e.used {
		e.used = true
		e.b.Grow(len(s) + len(redactedText))
	}
	e.b.WriteString(s[e.last:start])
	e.b.WriteString(redactedText)
	e.last = end
}

func (e *rdEdits) result(s string) string {
	if !e.used {
		return s
	}
	e.b.WriteString(s[e.last:])
	return e.b.String()
}

// replaceValue redacts the shell word s[start:end]. A value that is one
// quoted string keeps its quotes, so `X_TOKEN='abc'` stays readable as
// `X_TOKEN='[REDACTED]'`. Empty values and plain variable references
// ($NAME, ${NAME}) are not secrets and are left alone.
func (e *rdEdits) replaceValue(s string, start, end int) {
	if end-start >= 2 {
		q := s[start]
		if (q == '\'' || q == '"') && s[end-1] == q && strings.IndexByte(s[start+1:end], q) == end-start-2 {
			start, end = start+1, end-1
		}
	}
	if start >= end || rdIsVarRef(s[start:end]) {
		return
	}
	e.replace(s, start, end)
}

// --- PEM private keys -------------------------------------------------------

// rdPEM redacts "-----BEGIN ... PRIVATE KEY-----" through the END line. A
// block with no END line is redacted to the end of the string: a truncated
// key is still a key.
func rdPEM(s string) string {
	const begin = "-----BEGIN"
	if rdIndexAt(s, begin, 5) < 0 { // anchored on the rare 'B'
		return s
	}
	var e rdEdits
	i := 0
	for i < len(s) {
		k := strings.Index(s[i:], begin)
		if k < 0 {
			break
		}
		start := i + k
		hdr := start + len(begin)
		label := s[hdr:]
		body := len(s) // where the key material starts
		if j := strings.Index(label, "-----"); j >= 0 {
			label, body = label[:j], hdr+j+len("-----")
		}
		if j := strings.IndexByte(label, '\n'); j >= 0 {
			label, body = label[:j], hdr+j
		}
		if !strings.Contains(label, "PRIVATE KEY") {
			i = hdr // a certificate or public key: not a secret
			continue
		}
		end := len(s)
		if j := strings.Index(s[body:], "-----END"); j >= 0 {
			after := body + j + len("-----END")
			line := s[after:]
			if n := strings.IndexByte(line, '\n'); n >= 0 {
				line = line[:n]
			}
			if d := strings.Index(line, "-----"); d >= 0 {
				end = after + d + len("-----")
			} else {
				end = after + len(line)
			}
			// Never swallow the dashes of a following BEGIN line: that block
			// must be found and redacted in turn.
			if b := strings.Index(s[after:], begin); b >= 0 && after+b < end {
				end = after + b
			}
		}
		e.replace(s, start, end)
		i = end
	}
	return e.result(s)
}

// --- token-shaped secrets ---------------------------------------------------

// rdTokens redacts secrets recognisable by their prefix alone. A token must
// start at a word boundary so identifiers that merely contain a prefix
// ("task-...", "disk-...") are left alone.
func rdTokens(s string) string {
	if !rdHasTokenCandidate(s) {
		return s
	}
	var e rdEdits
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 'g', 'A', 'x', 's':
		default:
			continue
		}
		if i > 0 && rdIsWord(s[i-1]) {
			continue
		}
		if n, skip := rdTokenLen(s[i:]); n > 0 {
			e.replace(s, i, i+n)
			i += n - 1
		} else {
			i += skip
		}
	}
	return e.result(s)
}

// rdHasTokenCandidate is rdTokens' fast path: a few vectorised substring
// searches instead of a byte-by-byte scan of every command.
func rdHasTokenCandidate(s string) bool {
	if rdIndexAt(s, "sk-", 1) >= 0 || rdIndexAt(s, "xox", 0) >= 0 || rdIndexAt(s, "AKIA", 0) >= 0 || rdIndexAt(s, "ASIA", 0) >= 0 {
		return true
	}
	// Every GitHub token has a '_' right after "ghX" or "github".
	for i := 0; i < len(s); {
		k := strings.IndexByte(s[i:], '_')
		if k < 0 {
			return false
		}
		u := i + k
		if u >= 3 && s[u-3] == 'g' && s[u-2] == 'h' || u >= 6 && s[u-6:u] == "github" {
			return true
		}
		i = u + 1
	}
	return false
}

// rdTokenLen returns the length of the token at the start of t, or 0 and
// how many further bytes cannot start a token either (so that a long
// "sk-sk-sk-..." run is measured once, not once per "sk-").
func rdTokenLen(t string) (n, skip int) {
	switch t[0] {
	case 'g':
		if strings.HasPrefix(t, "github_pat_") {
			// Fine-grained PATs: 22..255 of [A-Za-z0-9_]; longer runs are
			// redacted whole rather than leaking their tail.
			if n := rdRun(t[11:], rdIsWord); n >= 22 {
				return 11 + n, 0
			}
			return 0, 0
		}
		if len(t) > 4 && t[1] == 'h' && strings.IndexByte("pousr", t[2]) >= 0 && t[3] == '_' {
			if n := rdRun(t[4:], rdIsAlnum); n >= 36 {
				return 4 + n, 0
			}
		}
	case 'A':
		if strings.HasPrefix(t, "AKIA") || strings.HasPrefix(t, "ASIA") {
			if n := rdRun(t[4:], rdIsUpperDigit); n >= 16 {
				return 4 + n, 0
			}
		}
	case 'x':
		if len(t) > 5 && strings.HasPrefix(t, "xox") && strings.IndexByte("bpars", t[3]) >= 0 && t[4] == '-' {
			if n := rdRun(t[5:], rdIsKeyByte); n >= 10 {
				return 5 + n, 0
			}
		}
	case 's':
		// sk-..., sk-proj-..., sk-ant-...: the body must look random (a digit
		// or capital somewhere) so package names such as
		// "sk-learn-something-long" are not mistaken for keys.
		if strings.HasPrefix(t, "sk-") {
			n := rdRun(t[3:], rdIsKeyByte)
			if n >= 20 && rdHasDigitOrUpper(t[3:3+n]) {
				return 3 + n, 0
			}
			// A later "sk-" inside this run sees a suffix of it: shorter,
			// and with no digit or capital if the whole run had none.
			return 0, 2 + n
		}
	}
	return 0, 0
}

// --- passwords in URLs ------------------------------------------------------

// rdURLPasswords redacts the password of scheme://user:password@host. The
// authority ends at the first '/', so "https://example.com/a@b" is untouched.
func rdURLPasswords(s string) string {
	if strings.IndexByte(s, '@') < 0 || !strings.Contains(s, "://") {
		return s
	}
	var e rdEdits
	i := 0
	for i < len(s) {
		k := strings.Index(s[i:], "://")
		if k < 0 {
			break
		}
		a := i + k + 3
		end := a
		for end < len(s) && !rdEndsAuthority(s[end]) {
			end++
		}
		auth := s[a:end]
		// The last '@' wins, as in browsers: a password may contain '@'.
		if at := strings.LastIndexByte(auth, '@'); at > 0 {
			if c := strings.IndexByte(auth[:at], ':'); c >= 0 && c+1 < at && !rdIsVarRef(auth[c+1:at]) {
				e.replace(s, a+c+1, a+at)
			}
		}
		i = end
	}
	return e.result(s)
}

func rdEndsAuthority(c byte) bool {
	switch c {
	case '/', '?', '#', '"', '\'', '`', '<', '>', '\\':
		return true
	}
	return rdIsSpace(c)
}

// --- Authorization headers and Bearer tokens --------------------------------

// rdAuthorization redacts the credentials of an "Authorization:" header
// (also Proxy-Authorization, and the JSON form "Authorization": "..."),
// keeping a known scheme word such as Bearer or Basic. The value runs to the
// end of the line or a quote, because some schemes (Digest) contain spaces.
func rdAuthorization(s string) string {
	const name = "authorization"
	const z = 7 // name[z] == 'z', the anchor: rare in commands
	if rdIndexFold(s, name, z) < 0 {
		return s
	}
	var e rdEdits
	next := 0 // hits before next lie in a header already handled
	rdFoldScan(s, 'z', func(p int) bool {
		if p-z < next || !rdFoldAt(s, p-z, name) {
			return false
		}
		q := p - z + len(name)
		next = q
		if q < len(s) && (s[q] == '"' || s[q] == '\'') {
			q++
		}
		q = rdSkipBlanks(s, q)
		if q >= len(s) || s[q] != ':' {
			return false
		}
		q = rdSkipBlanks(s, q+1)
		if q < len(s) && (s[q] == '"' || s[q] == '\'') {
			q++
		}
		valEnd := q
		for valEnd < len(s) && s[valEnd] != '\n' && s[valEnd] != '\r' && !rdIsQuote(s[valEnd]) {
			valEnd++
		}
		next = valEnd
		w := q
		for w < valEnd && !rdIsSpace(s[w]) {
			w++
		}
		if w == q {
			return false
		}
		cred := q
		if rdIsAuthScheme(s[q:w]) {
			cred = w
			for cred < valEnd && rdIsSpace(s[cred]) {
				cred++
			}
		}
		end := valEnd
		for end > cred && rdIsSpace(s[end-1]) {
			end--
		}
		if cred < end && !rdIsVarRef(s[cred:end]) {
			e.replace(s, cred, end)
		}
		return false
	})
	return e.result(s)
}

func rdIsAuthScheme(w string) bool {
	for _, scheme := range [...]string{"bearer", "basic", "token", "digest", "negotiate", "ntlm", "hoba", "mutual", "aws4-hmac-sha256"} {
		if rdEqualFold(w, scheme) {
			return true
		}
	}
	return false
}

// rdBearer redacts the token after a plain "Bearer " anywhere in the text.
// Without the header name the word may be prose ("Bearer authentication"),
// so the token must look like one: 8+ bytes with a digit, capital or symbol.
func rdBearer(s string) string {
	const word = "bearer"
	if rdIndexFold(s, word, 0) < 0 {
		return s
	}
	var e rdEdits
	next := 0 // hits before next lie in a token already handled
	rdFoldScan(s, 'b', func(start int) bool {
		if start < next || !rdFoldAt(s, start, word) {
			return false
		}
		q := start + len(word)
		next = q
		if start > 0 && rdIsAlnum(s[start-1]) {
			return false
		}
		if q >= len(s) || (s[q] != ' ' && s[q] != '\t') {
			return false
		}
		q = rdSkipBlanks(s, q)
		end := q
		for end < len(s) && !rdIsSpace(s[end]) && !rdIsQuote(s[end]) && s[end] != ',' && s[end] != ';' {
			end++
		}
		next = end
		// A word starting with '-' is an option of the command, not a token.
		if tok := s[q:end]; len(tok) >= 8 && tok[0] != '-' && rdLooksRandom(tok) && !rdIsVarRef(tok) {
			e.replace(s, q, end)
		}
		return false
	})
	return e.result(s)
}

// --- flags ------------------------------------------------------------------

// rdFlagValues redacts the value of "--password VALUE" style flags. The
// "--password=VALUE" form is handled by rdAssignments. A following word that
// starts with '-' is the next flag (the program will prompt), not a value.
func rdFlagValues(s string) string {
	if !strings.Contains(s, "--") {
		return s
	}
	var e rdEdits
	i := 0
	for i < len(s) {
		k := strings.Index(s[i:], "--")
		if k < 0 {
			break
		}
		start := i + k
		i = start + 2
		if start > 0 && !rdIsSpace(s[start-1]) && !rdIsQuote(s[start-1]) {
			continue
		}
		ne := start + 2
		for ne < len(s) && rdIsNameByte(s[ne]) {
			ne++
		}
		// No "--" inside the name starts a word, so resume after it: a run
		// of dashes is read once, not once per pair.
		i = ne
		if ne >= len(s) || (s[ne] != ' ' && s[ne] != '\t') || !rdIsSecretFlag(s[start+2:ne]) {
			continue
		}
		vs := rdSkipBlanks(s, ne)
		ve := rdValueEnd(s, vs)
		if vs == ve || s[vs] == '-' {
			continue
		}
		e.replaceValue(s, vs, ve)
		i = ve
	}
	return e.result(s)
}

// rdIsSecretFlag reports whether a long flag name (without "--") takes a
// secret: password, passwd, pass, token, secret, api-key, apikey, or a name
// ending in one of those after a '-' (--github-token, --client-secret).
func rdIsSecretFlag(name string) bool {
	for _, w := range [...]string{"password", "passwd", "pass", "token", "secret", "api-key", "apikey"} {
		if rdEqualFold(name, w) {
			return true
		}
	}
	for _, suf := range [...]string{"-password", "-passwd", "-token", "-secret", "-api-key", "-apikey"} {
		if len(name) > len(suf) && rdEqualFold(name[len(name)-len(suf):], suf) {
			return true
		}
	}
	return false
}

// rdShortP redacts "-pSECRET" and "-p SECRET" only in commands of programs
// where -p means password. For most programs it means something else
// (mkdir -p, cp -p, git add -p, psql -p PORT), so the program must appear
// earlier in the same simple command (which also covers "sudo mysql",
// "docker exec db mysql").
func rdShortP(s string) string {
	if rdIndexAt(s, "mysql", 1) < 0 && rdIndexAt(s, "mariadb", 6) < 0 && rdIndexAt(s, "sshpass", 2) < 0 {
		return s
	}
	var e rdEdits
	// The segment scanner and the program check both resume where they
	// stopped, so a long line full of -p costs linear time.
	//
	// A redacted -p value is opaque to both: neither a quote or separator
	// inside it nor a word in it counts. Otherwise redacting a value such as
	// -p"&" would remove a command separator and make the next round see a
	// different command, and Redact would not be idempotent. A value left
	// alone is read like any other text: in "time -p mysql -pX" the word
	// after the first -p is the program, not a value.
	var seg rdSegScan
	progSeg, progPos, progFound := -1, 0, false
	i := 0
	for i < len(s) {
		k := strings.Index(s[i:], "-p")
		if k < 0 {
			break
		}
		start := i + k
		i = start + 2
		if start == 0 || !rdIsSpace(s[start-1]) {
			continue // not a word start (this also skips "--password")
		}
		vs := start + 2
		if vs >= len(s) || rdIsSpace(s[vs]) {
			vs = rdSkipBlanks(s, vs)
			if vs >= len(s) || s[vs] == '-' {
				continue // bare -p: the program prompts
			}
		}
		ve := rdValueEnd(s, vs)
		if vs == ve {
			continue
		}
		if st := seg.to(s, start); st != progSeg {
			progSeg, progPos, progFound = st, st, false
		}
		if !progFound {
			// progPos and start both begin words, so no word is split
			// between two checks.
			progFound = rdHasPasswordProgram(s[progPos:start])
			progPos = start
		}
		if !progFound {
			continue
		}
		e.replaceValue(s, vs, ve)
		seg.skip(ve)
		i = ve
	}
	return e.result(s)
}

// rdHasPasswordProgram reports whether a word of seg names a program whose
// -p flag takes a password. Matching any earlier word of the simple command
// covers "sudo mysql" and "docker exec db mysql" alike.
func rdHasPasswordProgram(seg string) bool {
	for len(seg) > 0 {
		seg = strings.TrimLeft(seg, " \t\r")
		w := seg
		if j := strings.IndexAny(w, " \t\r"); j >= 0 {
			w = w[:j]
		}
		seg = seg[len(w):]
		w = strings.Trim(w, `"'`)
		if j := strings.LastIndexByte(w, '/'); j >= 0 {
			w = w[j+1:]
		}
		switch w {
		case "mysql", "mysqladmin", "mysqldump", "mysqlimport", "mysqlshow", "mysqlcheck", "mysqlslap", "mysqlpump",
			"mariadb", "mariadb-admin", "mariadb-dump", "mariadb-import", "mariadb-show", "mariadb-check", "mariadb-slap",
			"sshpass":
			return true
		}
	}
	return false
}

// rdSegScan finds where the simple command containing a position begins:
// just after the last unquoted, unescaped ; & | ( ) ` or newline before it.
// Separators inside quotes (mysql -e "select 1; select 2" -pX) do not count.
// Positions must be asked for in increasing order; the scan resumes.
type rdSegScan struct {
	i, start int
	quote    byte // the open quote, or 0
	esc      bool // the previous byte was an escaping backslash
}

// skip moves past s[z.i:end] without reading it; the quote state is that
// before it.
func (z *rdSegScan) skip(end int) {
	if end > z.i {
		z.i = end
	}
}

func (z *rdSegScan) to(s string, pos int) int {
	for ; z.i < pos; z.i++ {
		c := s[z.i]
		switch {
		case z.esc:
			z.esc = false
		case z.quote == '\'':
			if c == '\'' {
				z.quote = 0
			}
		case c == '\\':
			z.esc = true // escapes inside double quotes too
		case z.quote == '"':
			if c == '"' {
				z.quote = 0
			}
		case c == '\'' || c == '"':
			z.quote = c
		case c == ';' || c == '&' || c == '|' || c == '\n' || c == '(' || c == ')' || c == '`':
			z.start = z.i + 1
		}
	}
	return z.start
}

// --- NAME=value -------------------------------------------------------------

// rdAssignments redacts the value of NAME=value when NAME says it holds a
// secret: environment prefixes (FOO_TOKEN=abc cmd), exports, --flag=value,
// query parameters (?access_token=...) and key=value config arguments.
func rdAssignments(s string) string {
	if strings.IndexByte(s, '=') < 0 {
		return s
	}
	var e rdEdits
	i := 0
	for i < len(s) {
		k := strings.IndexByte(s[i:], '=')
		if k < 0 {
			break
		}
		eq := i + k
		i = eq + 1
		ns := eq
		for ns > 0 && rdIsNameByte(s[ns-1]) {
			ns--
		}
		if ns == eq || !rdIsSecretName(s[ns:eq]) {
			continue
		}
		ve := rdValueEnd(s, eq+1)
		e.replaceValue(s, eq+1, ve)
		if ve > i {
			i = ve
		}
	}
	return e.result(s)
}

// rdIsSecretName reports whether an assignment or flag name (compared
// case-insensitively, '-' and '_' alike, leading dashes ignored) names a
// secret. Names ending in _FILE, _PATH or _DIR hold locations, not secrets;
// CREDENTIAL is not a keyword because such values are nearly always paths or
// helpers (GOOGLE_APPLICATION_CREDENTIALS, credential.helper=store).
func rdIsSecretName(name string) bool {
	name = strings.TrimLeft(name, "-")
	if rdHasSuffixNorm(name, "_FILE") || rdHasSuffixNorm(name, "_PATH") || rdHasSuffixNorm(name, "_DIR") {
		return false
	}
	// One pass over the name, trying only the keywords that start with the
	// letter at hand: this runs for every '=' in every command.
	for i := 0; i < len(name); i++ {
		rest := name[i:]
		switch rdNorm(name[i]) {
		case 'P':
			if rdHasPrefixNorm(rest, "PASSWORD") || rdHasPrefixNorm(rest, "PASSWD") ||
				rdHasPrefixNorm(rest, "PASSPHRASE") || rdHasPrefixNorm(rest, "PRIVATE_KEY") {
				return true
			}
		case 'T':
			if rdHasPrefixNorm(rest, "TOKEN") {
				return true
			}
		case 'S':
			if rdHasPrefixNorm(rest, "SECRET") {
				return true
			}
		case 'A':
			if rdHasPrefixNorm(rest, "API_KEY") || rdHasPrefixNorm(rest, "APIKEY") ||
				rdHasPrefixNorm(rest, "ACCESS_KEY") || rdHasPrefixNorm(rest, "AUTHORIZATION") {
				return true
			}
		}
	}
	// PASS and PWD only as a whole word at the end: DB_PASS, MYSQL_PWD, but
	// not BYPASS, GIT_ASKPASS or PWD/OLDPWD (the working directory).
	return rdEqualNorm(name, "PASS") || rdHasSuffixNorm(name, "_PASS") || rdHasSuffixNorm(name, "_PWD")
}

// --- small helpers ------------------------------------------------------------

// rdValueEnd returns the end of the value starting at i. A value that
// starts with a quote runs to the matching quote (or the end of s). An
// unquoted value stops at whitespace (escaped or not), a shell operator or a
// quote: the assignment may itself sit inside a quoted argument, as in
// curl 'https://host/?token=abc' -H ..., and must not swallow the rest.
func rdValueEnd(s string, i int) int {
	if i >= len(s) {
		return i
	}
	if q := s[i]; q == '\'' || q == '"' {
		for j := i + 1; j < len(s); j++ {
			if s[j] == '\\' && q == '"' {
				j++
			} else if s[j] == q {
				return j + 1
			}
		}
		return len(s)
	}
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\r', '\v', '\f', ';', '&', '|', '<', '>', '(', ')', '`', '\'', '"':
			return i
		case '\\':
			// An escaped byte stays in the value, except whitespace: reading
			// "\ " as a word break keeps a following "--password X" visible
			// to the flag pass, at the cost of cutting a value with an
			// escaped space short.
			if i+1 < len(s) && rdIsSpace(s[i+1]) {
				return i + 1
			}
			i += 2
		default:
			i++
		}
	}
	return len(s)
}

// rdIsVarRef reports whether v is exactly $NAME or ${NAME}: a reference
// reveals nothing and is more useful left readable.
func rdIsVarRef(v string) bool {
	if len(v) < 2 || v[0] != '$' {
		return false
	}
	v = v[1:]
	if len(v) >= 2 && v[0] == '{' && v[len(v)-1] == '}' {
		v = v[1 : len(v)-1]
	}
	if v == "" || (v[0] >= '0' && v[0] <= '9') {
		return false
	}
	return rdRun(v, rdIsWord) == len(v)
}

func rdSkipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

func rdRun(s string, ok func(byte) bool) int {
	n := 0
	for n < len(s) && ok(s[n]) {
		n++
	}
	return n
}

func rdIsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func rdIsQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }

func rdIsAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func rdIsWord(c byte) bool { return rdIsAlnum(c) || c == '_' }

func rdIsKeyByte(c byte) bool { return rdIsWord(c) || c == '-' }

func rdIsNameByte(c byte) bool { return rdIsKeyByte(c) || c == '.' }

func rdIsUpperDigit(c byte) bool { return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }

func rdHasDigitOrUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if rdIsUpperDigit(s[i]) {
			return true
		}
	}
	return false
}

// rdLooksRandom reports whether tok has a byte other than a lower-case
// letter; English words do not.
func rdLooksRandom(tok string) bool {
	for i := 0; i < len(tok); i++ {
		if c := tok[i]; c < 'a' || c > 'z' {
			return true
		}
	}
	return false
}

func rdLower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

// rdEqualFold is an ASCII-only strings.EqualFold: names are ASCII, and
// Unicode folding would make, for example, the Kelvin sign equal 'k'.
func rdEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if rdLower(a[i]) != rdLower(b[i]) {
			return false
		}
	}
	return true
}

// rdIndexFold is an ASCII case-insensitive strings.Index; needle must be
// lower case. needle[anchor] should be a letter that is rare in command
// lines: hits on it are found with vectorised IndexByte and only then is the
// whole needle compared.
func rdIndexFold(s, needle string, anchor int) int {
	at := -1
	rdFoldScan(s, needle[anchor], func(p int) bool {
		if rdFoldAt(s, p-anchor, needle) {
			at = p - anchor
			return true
		}
		return false
	})
	return at
}

// rdFoldScan calls found, in increasing order, with each index of c or its
// upper-case form in s, until found returns true; it reports whether it did.
func rdFoldScan(s string, c byte, found func(int) bool) bool {
	up := c
	if c >= 'a' && c <= 'z' {
		up = c - ('a' - 'A')
	}
	nextLo, nextUp := -2, -2 // next index of each case, found lazily
	for from := 0; from < len(s); {
		if nextLo != -1 && nextLo < from {
			nextLo = rdIndexByteFrom(s, c, from)
		}
		if nextUp != -1 && nextUp < from {
			nextUp = rdIndexByteFrom(s, up, from)
		}
		p := nextLo
		if p < 0 || (nextUp >= 0 && nextUp < p) {
			p = nextUp
		}
		if p < 0 {
			return false
		}
		if found(p) {
			return true
		}
		from = p + 1
	}
	return false
}

// rdFoldAt reports whether s[i:] starts with needle, ignoring ASCII case.
func rdFoldAt(s string, i int, needle string) bool {
	return i >= 0 && i+len(needle) <= len(s) && rdEqualFold(s[i:i+len(needle)], needle)
}

// rdIndexAt is strings.Index for needles whose first byte is common in
// command lines ('-', 's'): it scans for needle[anchor], a rarer byte, with
// vectorised IndexByte and compares around each hit.
func rdIndexAt(s, needle string, anchor int) int {
	c := needle[anchor]
	for from := anchor; from < len(s); {
		k := strings.IndexByte(s[from:], c)
		if k < 0 {
			return -1
		}
		p := from + k
		if start := p - anchor; start+len(needle) <= len(s) && s[start:start+len(needle)] == needle {
			return start
		}
		from = p + 1
	}
	return -1
}

func rdIndexByteFrom(s string, c byte, from int) int {
	if k := strings.IndexByte(s[from:], c); k >= 0 {
		return from + k
	}
	return -1
}

// rdNorm folds a name byte for keyword matching: upper case, '-' as '_'.
func rdNorm(c byte) byte {
	if c == '-' {
		return '_'
	}
	if c >= 'a' && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// rdEqualNorm compares name with an upper-case keyword under rdNorm.
func rdEqualNorm(name, kw string) bool {
	if len(name) != len(kw) {
		return false
	}
	for i := 0; i < len(kw); i++ {
		if rdNorm(name[i]) != kw[i] {
			return false
		}
	}
	return true
}

func rdHasSuffixNorm(name, kw string) bool {
	return len(name) >= len(kw) && rdEqualNorm(name[len(name)-len(kw):], kw)
}

func rdHasPrefixNorm(name, kw string) bool {
	return len(name) >= len(kw) && rdEqualNorm(name[:len(kw)], kw)
}
