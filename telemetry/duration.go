package telemetry

import (
	"fmt"
	"math"
	"time"
)

// Day is the "d" unit of ParseDuration: 24 hours, as a user means it when
// asking for the last 7 days (time zones and leap seconds do not matter here).
const Day = 24 * time.Hour

// durationUnits maps each unit letter ParseDuration accepts to its length,
// largest first so FormatDuration picks the shortest spelling.
var durationUnits = [...]struct {
	unit byte
	d    time.Duration
}{{'d', Day}, {'h', time.Hour}, {'m', time.Minute}, {'s', time.Second}}

// ParseDuration parses the durations `log --last` takes: a positive decimal
// integer followed by one unit letter, s, m, h or d ("30s", "15m", "2h",
// "7d"). It is deliberately narrower than time.ParseDuration: no compound
// values ("1h30m"), no fractions, no signs and no bare numbers, so that a
// typo is an error instead of a surprising window.
func ParseDuration(s string) (time.Duration, error) {
	if s == "" {
		return 0, fmt.Errorf("invalid duration %q: expected <number><unit> with unit s, m, h or d (e.g. 30s, 15m, 2h, 7d)", s)
	}
	digits := 0
	for digits < len(s) && s[digits] >= '0' && s[digits] <= '9' {
		digits++
	}
	if digits == 0 {
		if s[0] == '-' {
			return 0, fmt.Errorf("invalid duration %q: must be positive", s)
		}
		return 0, fmt.Errorf("invalid duration %q: expected <number><unit> with unit s, m, h or d (e.g. 30s, 15m, 2h, 7d)", s)
	}
	if digits == len(s) {
		return 0, fmt.Errorf("invalid duration %q: missing unit (s, m, h or d), e.g. %ss", s, s)
	}
	if digits != len(s)-1 {
		return 0, fmt.Errorf("invalid duration %q: expected one number and one unit (s, m, h or d), e.g. 90m instead of 1h30m", s)
	}
	var unit time.Duration
	for _, u := range durationUnits {
		if s[digits] == u.unit {
			unit = u.d
		}
	}
	if unit == 0 {
		return 0, fmt.Errorf("invalid duration %q: unknown unit %q (want s, m, h or d)", s, s[digits:])
	}
	// Accumulate with an overflow check on every digit: the count can be any
	// length, and the product must fit in a time.Duration.
	limit := int64(math.MaxInt64) / int64(unit)
	var n int64
	for _, c := range []byte(s[:digits]) {
		d := int64(c - '0')
		if n > (limit-d)/10 {
			return 0, fmt.Errorf("invalid duration %q: too large (at most %d%c)", s, limit, s[digits])
		}
		n = n*10 + d
	}
	if n == 0 {
		return 0, fmt.Errorf("invalid duration %q: must be positive", s)
	}
	return time.Duration(n) * unit, nil
}

// FormatDuration spells d the way ParseDuration reads it, in the largest unit
// that divides it exactly; ok is false when no such spelling exists (d not
// positive, or not a whole number of seconds).
func FormatDuration(d time.Duration) (s string, ok bool) {
	if d <= 0 {
		return "", false
	}
	for _, u := range durationUnits {
		if d%u.d == 0 {
			return fmt.Sprintf("%d%c", d/u.d, u.unit), true
		}
	}
	return "", false
}
