// Package jsonstr writes JSON strings by hand, for the encoders that build
// their JSON byte by byte (event lines, state snapshots, hook payloads):
// one escaping, so that they all agree.
package jsonstr

import (
	"errors"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// Append appends s as a JSON string. Invalid UTF-8 becomes U+FFFD, and
// control characters, U+2028 and U+2029 are escaped, so the output never
// holds a raw newline and always decodes.
func Append(b []byte, s string) []byte { return appendString(b, s, false) }

// AppendMarshal appends s as encoding/json's Marshal writes it, byte for
// byte: Append's escaping, with <, > and & as \u escapes and \b and \f by
// name. It is for text whose digest was taken of json.Marshal's output.
func AppendMarshal(b []byte, s string) []byte { return appendString(b, s, true) }

func appendString(b []byte, s string, marshal bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && !(marshal && (c == '<' || c == '>' || c == '&')) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case marshal && c == '\b':
				b = append(b, '\\', 'b')
			case marshal && c == '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// ErrInvalidUTF8 is AppendExact's error for a string that is not UTF-8.
var ErrInvalidUTF8 = errors.New("not valid UTF-8")

// AppendExact is Append for a string that must come back exactly as it
// was: one that is not valid UTF-8 is an error, never a replaced byte.
func AppendExact(b []byte, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return b, ErrInvalidUTF8
	}
	return Append(b, s), nil
}
