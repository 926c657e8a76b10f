// Package corpustsv reads the labelled command corpora that the parser and
// policy tests run over: tab-separated files with a header line whose
// fields escape backslash, tab, newline and carriage return.
package corpustsv

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

// Row is one line of a corpus file after the header.
type Row struct {
	Line   int // in the file, counting the header as line 1
	Fields []string
}

// Read reads every row of a corpus file, unescaping its fields.
func Read(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadFrom(f, path)
}

// ReadFrom is Read of a file already open (or embedded); name is what its
// errors call it.
func ReadFrom(r io.Reader, name string) ([]Row, error) {
	var rows []Row
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if n == 1 {
			continue // header
		}
		fields := strings.Split(sc.Text(), "\t")
		for i := range fields {
			fields[i] = Unescape(fields[i])
		}
		rows = append(rows, Row{Line: n, Fields: fields})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return rows, nil
}

// Unescape undoes the corpus escapes: \\ \t \n \r.
func Unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Escape is the inverse of Unescape.
func Escape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`).Replace(s)
}
