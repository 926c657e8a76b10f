package shellcmd

// maxParseNest bounds how deep a line may nest before it is parsed at all.
// The parser recurses once per level, and its stack is what a hostile line
// grows: 60,000 nested `( … )` took a quarter of a GiB. At this depth it
// takes a few MiB; the walk stops at maxNest anyway.
const maxParseNest = 1000

// nestsDeeper reports whether src could nest more than limit levels. It
// overestimates, never under: it counts every opening bracket outside
// single quotes (a `(` in double quotes may open a `$(`), and every
// compound-command keyword that starts a word, so a line it passes cannot
// make the parser recurse deeper than limit.
func nestsDeeper(src string, limit int) bool {
	depth := 0
	inSingle, inDouble := false, false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case inSingle:
			inSingle = c != '\''
			continue
		case c == '\\':
			i++
			continue
		case c == '"':
			inDouble = !inDouble
			continue
		case c == '\'' && !inDouble:
			inSingle = true
			continue
		}
		switch c {
		case '(', '{', '[', '`':
			depth++
		case ')', '}', ']':
			depth = max(0, depth-1)
		default:
			if inDouble || (i > 0 && !wordBoundary(src[i-1])) {
				continue
			}
			switch keywordAt(src, i) {
			case "if", "while", "until", "for", "case", "select":
				depth++
			case "fi", "done", "esac":
				depth = max(0, depth-1)
			}
		}
		if depth > limit {
			return true
		}
	}
	return false
}

func wordBoundary(c byte) bool {
	switch c {
	case ' ', '\t', '\n', ';', '&', '|', '(', ')', '{', '}', '`':
		return true
	}
	return false
}

// keywordAt is the word of lowercase letters starting at i, when a word
// boundary (or the end) follows it.
func keywordAt(src string, i int) string {
	j := i
	for j < len(src) && j-i < 6 && src[j] >= 'a' && src[j] <= 'z' {
		j++
	}
	if j == i || (j < len(src) && !wordBoundary(src[j])) {
		return ""
	}
	return src[i:j]
}
