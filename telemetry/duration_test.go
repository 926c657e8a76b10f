package telemetry

import (
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{"30s", 30 * time.Second, ""},
		{"15m", 15 * time.Minute, ""},
		{"2h", 2 * time.Hour, ""},
		{"7d", 7 * 24 * time.Hour, ""},
		{"1s", time.Second, ""},
		{"007d", 7 * 24 * time.Hour, ""},
		{"106751d", 106751 * Day, ""}, // the largest whole number of days
		{"9223372036s", 9223372036 * time.Second, ""},
		{"0m", 0, `invalid duration "0m": must be positive`},
		{"000s", 0, "must be positive"},
		{"-1h", 0, `invalid duration "-1h": must be positive`},
		{"abc", 0, `invalid duration "abc": expected <number><unit> with unit s, m, h or d`},
		{"", 0, `invalid duration "": expected`},
		{"30", 0, `invalid duration "30": missing unit (s, m, h or d), e.g. 30s`},
		{"1h30m", 0, `invalid duration "1h30m": expected one number and one unit`},
		{"1.5h", 0, "expected one number and one unit"},
		{"90x", 0, `invalid duration "90x": unknown unit "x" (want s, m, h or d)`},
		{"10H", 0, "unknown unit"},
		{"1ms", 0, "expected one number and one unit"},
		{"+1h", 0, "expected <number><unit>"},
		{" 1h", 0, "expected <number><unit>"},
		{"1h ", 0, "expected one number and one unit"},
		{"106752d", 0, `invalid duration "106752d": too large (at most 106751d)`},
		{"9223372037s", 0, "too large"},
		{"99999999999999999999999h", 0, "too large"},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseDuration(%q) = %v, %v; want error containing %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
		ok   bool
	}{
		{90 * time.Second, "90s", true},
		{2 * time.Minute, "2m", true},
		{48 * time.Hour, "2d", true},
		{25 * time.Hour, "25h", true},
		{1500 * time.Millisecond, "", false},
		{0, "", false},
		{-time.Hour, "", false},
	}
	for _, tt := range tests {
		got, ok := FormatDuration(tt.d)
		if got != tt.want || ok != tt.ok {
			t.Errorf("FormatDuration(%v) = %q, %v; want %q, %v", tt.d, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzParseDuration: never panics; whatever it accepts is positive, a whole
// number of its unit, and reads back the same when formatted.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"30s", "15m", "2h", "7d", "0m", "-1h", "abc", "30", "1h30m", "106752d", "9223372036854775807s", "0007d", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err != nil {
			if d != 0 {
				t.Fatalf("ParseDuration(%q) = %v with error %v", s, d, err)
			}
			if !strings.Contains(err.Error(), "invalid duration") {
				t.Fatalf("error without context: %v", err)
			}
			return
		}
		if d <= 0 {
			t.Fatalf("ParseDuration(%q) = %v, not positive", s, d)
		}
		f, ok := FormatDuration(d)
		if !ok {
			t.Fatalf("FormatDuration(%v) failed for accepted %q", d, s)
		}
		back, err := ParseDuration(f)
		if err != nil || back != d {
			t.Fatalf("round trip %q -> %v -> %q -> %v, %v", s, d, f, back, err)
		}
		// The input, without leading zeros, is its value in its own unit.
		unit := s[len(s)-1]
		n := strings.TrimLeft(s[:len(s)-1], "0")
		if again, err := ParseDuration(n + string(unit)); err != nil || again != d {
			t.Fatalf("%q and %q differ", s, n+string(unit))
		}
	})
}
