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
	// Events is the number of chained lines that passed, before the first
	// break (torn lines are not events; repairs are).
	Events int
	// Line is the 1-based line of the first break; 0 when the chain holds.
	Line int
	// Problem says what is wrong at Line.
	Problem string
	// Repairs are the torn lines the chain skips, before the first break.
	Repairs []Repair
}

// OK reports whether the whole file passed.
func (r *VerifyResult) OK() bool { return r.Line == 0 }

// VerifyFile checks that the file at path is an intact chain: every line is
// one JSON object, seq counts 1, 2, 3... and each line's prev_sha256 is the
// SHA-256 of the line before it (its bytes without the newline). It stops
// at the first break, so that the report points at where the tampering (or
// damage) starts. A deleted or moved line shows up as a seq break; a
// changed line as a hash mismatch on the line after it (a changed last line
// cannot be detected: nothing follows it). The one exception is a run of
// torn lines (writes cut short) that the repair event after them names
// exactly: the chain skips them, from the line before to the repair, and
// they are listed in Repairs. The error is for I/O failures only.
func VerifyFile(path string) (VerifyResult, error) {
	f, err := openSessionFile(path, syscall.O_RDONLY)
	if err != nil {
		return VerifyResult{File: path}, fmt.Errorf("verify: %w", err)
	}
	defer f.Close()
	res, err := verifyChain(f)
	res.File = path
	if err != nil {
		return res, fmt.Errorf("verify %s: %w", path, err)
	}
	return res, nil
}

// verifyChain is VerifyFile on the file's contents.
func verifyChain(r io.Reader) (VerifyResult, error) {
	var res VerifyResult
	lr := NewLineReader(r)
	var sc Scanner
	var lf LineFields
	var prev [sha256.Size]byte
	var prevHex [2 * sha256.Size]byte
	prevLine := 0
	var offset int64 // where the line read next starts
	// Damaged lines since the last chained one: a break, unless a repair
	// names them next.
	var damaged []damagedLine
	fail := func(line int, format string, args ...any) (VerifyResult, error) {
		res.Line, res.Problem = line, fmt.Sprintf(format, args...)
		return res, nil
	}
	// The first damaged line is the break when no repair names the run.
	unrepaired := func(why string) (VerifyResult, error) {
		return fail(damaged[0].num, "%s%s", damaged[0].problem, why)
	}
	for {
		line, num, tooLong, err := lr.Next()
		if errors.Is(err, io.EOF) {
			if len(damaged) > 0 {
				return unrepaired("")
			}
			return res, nil
		}
		if err != nil {
			return res, err
		}
		if tooLong {
			if len(damaged) > 0 {
				return unrepaired("")
			}
			return fail(num, "line is longer than %d bytes", MaxLineBytes)
		}
		start := offset
		offset += int64(len(line)) + 1
		if err := sc.Scan(line, &lf); err != nil {
			if len(damaged) == maxTornLines {
				return unrepaired("")
			}
			damaged = append(damaged, damagedLine{num: num, problem: lineProblem(err), torn: tornLine(start, line)})
			continue
		}
		isRepair := string(lf.Event) == EventRepair
		switch {
		case len(damaged) > 0 && !isRepair:
			return unrepaired("")
		case len(damaged) > 0 && !namesExactly(line, damaged):
			return unrepaired(fmt.Sprintf(" (the repair at line %d names other lines)", num))
		case isRepair && len(damaged) == 0:
			return fail(num, "a repair, but the line before it is not torn")
		}
		want := int64(res.Events + 1)
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
		if res.Events == 0 {
			if len(lf.PrevSHA256) > 0 {
				return fail(num, "first line has a prev_sha256 (the lines before it were removed)")
			}
		} else {
			hex.Encode(prevHex[:], prev[:])
			switch {
			case len(lf.PrevSHA256) == 0:
				return fail(num, "no prev_sha256")
			case string(lf.PrevSHA256) != string(prevHex[:]):
				return fail(num, "prev_sha256 does not match line %d (line %d was changed)", prevLine, prevLine)
			}
		}
		if isRepair {
			res.Repairs = append(res.Repairs, repairOf(num, damaged))
			damaged = nil
		}
		prev = sha256.Sum256(line)
		prevLine = num
		res.Events++
	}
}

// lineProblem says why a line is not one JSON object.
func lineProblem(err error) string {
	var le *LineError
	if errors.As(err, &le) && le.NotObject {
		return le.Msg
	}
	return fmt.Sprintf("not a well-formed JSON object: %v", err)
}
