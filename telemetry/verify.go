package telemetry

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"syscall"
)

// VerifyResult is the outcome of checking one session file's chain.
type VerifyResult struct {
	File string
	// Events is the number of lines that passed, before the first break.
	Events int
	// Line is the 1-based line of the first break; 0 when the chain holds.
	Line int
	// Problem says what is wrong at Line.
	Problem string
}

// OK reports whether the whole file passed.
func (r *VerifyResult) OK() bool { return r.Line == 0 }

// VerifyFile checks that the file at path is an intact chain: every line is
// one JSON object, seq is 1 on the first line and one more on each line
// after, and each line's prev_sha256 is the SHA-256 of the line before it
// (its bytes without the newline). It stops at the first break, so that the
// report points at where the tampering (or damage) starts. A deleted or
// moved line shows up as a seq break; a changed line as a hash mismatch on
// the line after it (a changed last line cannot be detected: nothing
// follows it). The error is for I/O failures only.
func VerifyFile(path string) (VerifyResult, error) {
	res := VerifyResult{File: path}
	f, err := openSessionFile(path, syscall.O_RDONLY)
	if err != nil {
		return res, fmt.Errorf("verify: %w", err)
	}
	defer f.Close()
	lr := NewLineReader(f)
	var sc Scanner
	var lf LineFields
	var prev [sha256.Size]byte
	var prevHex [2 * sha256.Size]byte
	fail := func(line int, format string, args ...any) (VerifyResult, error) {
		res.Line, res.Problem = line, fmt.Sprintf(format, args...)
		return res, nil
	}
	for {
		line, num, tooLong, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return res, nil
		}
		if err != nil {
			return res, fmt.Errorf("verify %s: %w", path, err)
		}
		if tooLong {
			return fail(num, "line is longer than %d bytes", MaxLineBytes)
		}
		if err := sc.Scan(line, &lf); err != nil {
			var le *LineError
			if errors.As(err, &le) && le.NotObject {
				return fail(num, "%s", le.Msg)
			}
			return fail(num, "not a well-formed JSON object: %v", err)
		}
		want := int64(num)
		switch {
		case !lf.HasSeq:
			return fail(num, "no seq (not written by agent-shell's chained writer)")
		case !lf.SeqInt:
			return fail(num, "seq is not an integer")
		case lf.Seq > want:
			return fail(num, "seq %d, want %d (a line was deleted or moved)", lf.Seq, want)
		case lf.Seq < want:
			return fail(num, "seq %d, want %d (a line was repeated or moved)", lf.Seq, want)
		}
		if num == 1 {
			if len(lf.PrevSHA256) > 0 {
				return fail(num, "first line has a prev_sha256 (the lines before it were removed)")
			}
		} else {
			hex.Encode(prevHex[:], prev[:])
			switch {
			case len(lf.PrevSHA256) == 0:
				return fail(num, "no prev_sha256")
			case string(lf.PrevSHA256) != string(prevHex[:]):
				return fail(num, "prev_sha256 does not match line %d (line %d was changed)", num-1, num-1)
			}
		}
		prev = sha256.Sum256(line)
		res.Events++
	}
}
