package runtime

import (
	"bufio"
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/agent-shell/agent-shell/builtins"
	"github.com/agent-shell/agent-shell/state"
)

const scriptTestDir = "testdata/scripttest"

// scriptTestRuntime compiles the scripts under test in testdata/scripttest.
func scriptTestRuntime(t testing.TB) *Runtime {
	t.Helper()
	var decls []Script
	for _, s := range []struct {
		id   string
		kind builtins.Kind
		lc   state.Lifecycle
	}{
		{"tf", builtins.KindMatcher, state.Invocation},
		{"counter", builtins.KindReviewer, state.Session},
		{"audit", builtins.KindAudit, state.Invocation},
	} {
		src, err := ReadSource(scriptTestDir, s.id+".star")
		if err != nil {
			t.Fatal(err)
		}
		decls = append(decls, Script{ID: s.id, Kind: s.kind, File: s.id + ".star", Source: src, Lifecycle: s.lc,
			Limits: Limits{Fuel: 20_000, Timeout: 5 * time.Second}})
	}
	return mustCompile(t, decls, Options{Dir: scriptTestDir})
}

// testFiles reads *_test.star files from testdata/scripttest.
func testFiles(t testing.TB, names ...string) []TestFile {
	t.Helper()
	var files []TestFile
	for _, n := range names {
		src, err := ReadSource(scriptTestDir, n)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, TestFile{Name: n, Path: n, Source: src})
	}
	return files
}

var durations = regexp.MustCompile(`\(\d+\.\d\ds\)|\t\d+\.\d\d\ds\n`)

// normalise replaces durations with zeros.
func normalise(s string) string {
	return durations.ReplaceAllStringFunc(s, func(d string) string {
		if d[0] == '(' {
			return "(0.00s)"
		}
		return "\t0.000s\n"
	})
}

// runTests runs files on the testdata runtime and returns the summary and
// the normalised output.
func runTests(t *testing.T, files []TestFile, opts TestOptions) (TestSummary, string) {
	t.Helper()
	var out bytes.Buffer
	sum := scriptTestRuntime(t).RunTests(files, opts, &out)
	return sum, normalise(out.String())
}

func wantOutput(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("output:\n%s\nwant:\n%s\ndiff from line %d", got, want, firstDiffLine(got, want))
	}
}

func firstDiffLine(a, b string) int {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}

const passText = `--- PASS: pass_test.star/test_destroy_matches (0.00s)
--- PASS: pass_test.star/test_plan_does_not_match (0.00s)
--- PASS: pass_test.star/test_counter_state (0.00s)
--- PASS: pass_test.star/test_counter_sees_policy (0.00s)
--- PASS: pass_test.star/test_counter_rolls_back (0.00s)
--- PASS: pass_test.star/test_counter_fuel (0.00s)
--- PASS: pass_test.star/test_audit_drops_secret (0.00s)
--- PASS: pass_test.star/test_prints (0.00s)
--- SKIP: pass_test.star/todo_test_later (0.00s)
`

const failText = `--- FAIL: fail_test.star/test_two_failures (0.00s)
    fail_test.star:2:14: assert.eq: 1 != 2
    fail_test.star:3:16: assert.true: second
    | still running
--- FAIL: fail_test.star/test_error (0.00s)
    Traceback (most recent call last):
      fail_test.star:7:9: in test_error
    Error in fail: fail: stop
--- FAIL: fail_test.star/test_unknown_ctx_field (0.00s)
    Traceback (most recent call last):
      fail_test.star:10:14: in test_unknown_ctx_field
    Error in t.context: t.context: unexpected keyword argument "nope"
--- FAIL: fail_test.star/test_undeclared_script (0.00s)
    Traceback (most recent call last):
      fail_test.star:13:10: in test_undeclared_script
    Error in t.run: t.run: no script "nope" is declared (declared: tf, counter, audit)
--- PASS: fail_test.star/test_ok (0.00s)
FAIL	fail_test.star	0.000s
`

const brokenText = `--- FAIL: broken_test.star (0.00s)
    broken_test.star:2:12: undefined: nope
FAIL	broken_test.star	0.000s
`

func TestRunTestsText(t *testing.T) {
	sum, out := runTests(t, testFiles(t, "pass_test.star", "fail_test.star", "broken_test.star", "order_test.star", "misc_test.star"), TestOptions{})
	wantOutput(t, out, passText+failText+brokenText+`--- PASS: order_test.star/test_z (0.00s)
--- PASS: order_test.star/test_a (0.00s)
--- PASS: order_test.star/test_m (0.00s)
--- PASS: misc_test.star/test_result_fields (0.00s)
--- PASS: misc_test.star/test_ctx_errors (0.00s)
--- PASS: misc_test.star/test_run_errors (0.00s)
--- PASS: misc_test.star/test_program_and_basename (0.00s)
`)
	if want := (TestSummary{Passed: 16, Failed: 5, Skipped: 1}); sum != want {
		t.Errorf("summary %+v, want %+v", sum, want)
	}
	if got := sum.String(); got != "16 passed, 5 failed, 1 skipped" {
		t.Errorf("String() = %q", got)
	}
}

func TestRunTestsVerbose(t *testing.T) {
	sum, out := runTests(t, testFiles(t, "pass_test.star", "order_test.star", "fail_test.star"), TestOptions{Verbose: true})
	wantOutput(t, out, `=== RUN   pass_test.star/test_destroy_matches
--- PASS: pass_test.star/test_destroy_matches (0.00s)
=== RUN   pass_test.star/test_plan_does_not_match
--- PASS: pass_test.star/test_plan_does_not_match (0.00s)
=== RUN   pass_test.star/test_counter_state
--- PASS: pass_test.star/test_counter_state (0.00s)
=== RUN   pass_test.star/test_counter_sees_policy
--- PASS: pass_test.star/test_counter_sees_policy (0.00s)
=== RUN   pass_test.star/test_counter_rolls_back
--- PASS: pass_test.star/test_counter_rolls_back (0.00s)
=== RUN   pass_test.star/test_counter_fuel
--- PASS: pass_test.star/test_counter_fuel (0.00s)
=== RUN   pass_test.star/test_audit_drops_secret
--- PASS: pass_test.star/test_audit_drops_secret (0.00s)
=== RUN   pass_test.star/test_prints
--- PASS: pass_test.star/test_prints (0.00s)
    | hello from the test
=== RUN   pass_test.star/todo_test_later
--- SKIP: pass_test.star/todo_test_later (0.00s)
ok  	pass_test.star	0.000s
=== RUN   order_test.star/test_z
--- PASS: order_test.star/test_z (0.00s)
=== RUN   order_test.star/test_a
--- PASS: order_test.star/test_a (0.00s)
=== RUN   order_test.star/test_m
--- PASS: order_test.star/test_m (0.00s)
ok  	order_test.star	0.000s
=== RUN   fail_test.star/test_two_failures
--- FAIL: fail_test.star/test_two_failures (0.00s)
    fail_test.star:2:14: assert.eq: 1 != 2
    fail_test.star:3:16: assert.true: second
    | still running
=== RUN   fail_test.star/test_error
--- FAIL: fail_test.star/test_error (0.00s)
    Traceback (most recent call last):
      fail_test.star:7:9: in test_error
    Error in fail: fail: stop
=== RUN   fail_test.star/test_unknown_ctx_field
--- FAIL: fail_test.star/test_unknown_ctx_field (0.00s)
    Traceback (most recent call last):
      fail_test.star:10:14: in test_unknown_ctx_field
    Error in t.context: t.context: unexpected keyword argument "nope"
=== RUN   fail_test.star/test_undeclared_script
--- FAIL: fail_test.star/test_undeclared_script (0.00s)
    Traceback (most recent call last):
      fail_test.star:13:10: in test_undeclared_script
    Error in t.run: t.run: no script "nope" is declared (declared: tf, counter, audit)
=== RUN   fail_test.star/test_ok
--- PASS: fail_test.star/test_ok (0.00s)
FAIL	fail_test.star	0.000s
`)
	if want := (TestSummary{Passed: 12, Failed: 4, Skipped: 1}); sum != want {
		t.Errorf("summary %+v, want %+v", sum, want)
	}
}

func TestRunTestsRunFilter(t *testing.T) {
	files := testFiles(t, "pass_test.star", "order_test.star", "fail_test.star")
	sum, out := runTests(t, files, TestOptions{Run: regexp.MustCompile(`pass_test.star/test_counter_|/test_[zm]$`)})
	wantOutput(t, out, `--- PASS: pass_test.star/test_counter_state (0.00s)
--- PASS: pass_test.star/test_counter_sees_policy (0.00s)
--- PASS: pass_test.star/test_counter_rolls_back (0.00s)
--- PASS: pass_test.star/test_counter_fuel (0.00s)
--- PASS: order_test.star/test_z (0.00s)
--- PASS: order_test.star/test_m (0.00s)
`)
	if want := (TestSummary{Passed: 6}); sum != want {
		t.Errorf("summary %+v, want %+v", sum, want)
	}
	if got := sum.String(); got != "6 passed, 0 failed" {
		t.Errorf("String() = %q", got)
	}
	// A filter matching a skipped test reports it as skipped, nothing else.
	sum, out = runTests(t, files, TestOptions{Run: regexp.MustCompile(`later`)})
	wantOutput(t, out, "--- SKIP: pass_test.star/todo_test_later (0.00s)\n")
	if want := (TestSummary{Skipped: 1}); sum != want {
		t.Errorf("summary %+v, want %+v", sum, want)
	}
}

// testEvent2JSON is a test2json event, decoded strictly.
type testEvent2JSON struct {
	Time    time.Time
	Action  string
	Package string
	Test    string
	Elapsed *float64
	Output  string
}

func decodeEvents(t *testing.T, out string) []testEvent2JSON {
	t.Helper()
	var events []testEvent2JSON
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		var ev testEvent2JSON
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		if dec.More() {
			t.Fatalf("line %q holds more than one value", sc.Text())
		}
		events = append(events, ev)
	}
	return events
}

func TestRunTestsJSON(t *testing.T) {
	var out bytes.Buffer
	before := time.Now()
	sum := scriptTestRuntime(t).RunTests(testFiles(t, "pass_test.star", "fail_test.star", "broken_test.star"), TestOptions{JSON: true}, &out)
	if want := (TestSummary{Passed: 9, Failed: 5, Skipped: 1}); sum != want {
		t.Errorf("summary %+v, want %+v", sum, want)
	}
	events := decodeEvents(t, out.String())
	final := map[string]string{} // "file/test" or "file" -> last non-output action
	running := map[string]bool{}
	outputs := map[string]string{}
	for _, ev := range events {
		if ev.Time.Before(before) || ev.Time.After(time.Now()) {
			t.Errorf("event %+v: bad Time", ev)
		}
		if !strings.HasSuffix(ev.Package, "_test.star") {
			t.Errorf("event %+v: Package is not the file", ev)
		}
		name := ev.Package
		if ev.Test != "" {
			name += "/" + ev.Test
		}
		switch ev.Action {
		case "run":
			if ev.Test == "" || running[name] || final[name] != "" {
				t.Errorf("event %+v: run twice or of no test", ev)
			}
			running[name] = true
		case "output":
			if ev.Output == "" || !strings.HasSuffix(ev.Output, "\n") {
				t.Errorf("event %+v: output not ending a line", ev)
			}
			outputs[name] += ev.Output
		case "pass", "fail", "skip":
			if ev.Elapsed == nil || *ev.Elapsed < 0 {
				t.Errorf("event %+v: no Elapsed", ev)
			}
			if ev.Test != "" && ev.Action != "skip" && !running[name] {
				t.Errorf("event %+v: %s without run", ev, ev.Action)
			}
			if final[name] != "" {
				t.Errorf("event %+v: second result", ev)
			}
			delete(running, name)
			final[name] = ev.Action
		default:
			t.Errorf("event %+v: unknown Action", ev)
		}
		if ev.Action != "output" && ev.Output != "" {
			t.Errorf("event %+v: Output on a %s event", ev, ev.Action)
		}
	}
	if len(running) != 0 {
		t.Errorf("tests run without a result: %v", running)
	}
	want := map[string]string{
		"pass_test.star/test_destroy_matches":     "pass",
		"pass_test.star/test_plan_does_not_match": "pass",
		"pass_test.star/test_counter_state":       "pass",
		"pass_test.star/test_counter_sees_policy": "pass",
		"pass_test.star/test_counter_rolls_back":  "pass",
		"pass_test.star/test_counter_fuel":        "pass",
		"pass_test.star/test_audit_drops_secret":  "pass",
		"pass_test.star/test_prints":              "pass",
		"pass_test.star/todo_test_later":          "skip",
		"pass_test.star":                          "pass",
		"fail_test.star/test_two_failures":        "fail",
		"fail_test.star/test_error":               "fail",
		"fail_test.star/test_unknown_ctx_field":   "fail",
		"fail_test.star/test_undeclared_script":   "fail",
		"fail_test.star/test_ok":                  "pass",
		"fail_test.star":                          "fail",
		"broken_test.star":                        "fail",
	}
	for k, v := range want {
		if final[k] != v {
			t.Errorf("%s: %q, want %q", k, final[k], v)
		}
	}
	if len(final) != len(want) {
		t.Errorf("results for %d names, want %d: %v", len(final), len(want), final)
	}
	for name, text := range map[string]string{
		"pass_test.star/test_prints":       "hello from the test\n",
		"fail_test.star/test_two_failures": "still running\n    fail_test.star:2:14: assert.eq: 1 != 2\n    fail_test.star:3:16: assert.true: second\n",
		"broken_test.star":                 "    broken_test.star:2:12: undefined: nope\n",
	} {
		if outputs[name] != text {
			t.Errorf("output of %s = %q, want %q", name, outputs[name], text)
		}
	}
}

// TestRunTestsJSONMultilineFailure: a failure of several lines (a
// backtrace) reads the same in -json as in text: every line indented.
func TestRunTestsJSONMultilineFailure(t *testing.T) {
	files := testFiles(t, "fail_test.star")
	opts := TestOptions{Run: regexp.MustCompile(`test_error`)}
	_, text := runTests(t, files, opts)
	opts.JSON = true
	var out bytes.Buffer
	scriptTestRuntime(t).RunTests(files, opts, &out)
	var got string
	for _, ev := range decodeEvents(t, out.String()) {
		if ev.Action == "output" {
			got += ev.Output
		}
	}
	// The text output less its "--- FAIL" and "FAIL" lines.
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	want := strings.Join(lines[1:len(lines)-1], "\n") + "\n"
	if got != want {
		t.Errorf("-json output of a backtrace:\n%s\nwant it as in text:\n%s", got, want)
	}
}

// inline is a test file given by its source, outside the runtime's folder.
func inline(name, src string) []TestFile {
	return []TestFile{{Name: name, Source: []byte(src)}}
}

func TestRunTestsLimits(t *testing.T) {
	spin := "def test_spin(t):\n    for i in range(1000000000):\n        pass\n\ndef test_after(t):\n    pass\n"
	sum, out := runTests(t, inline("spin_test.star", spin), TestOptions{Fuel: 10_000})
	if want := (TestSummary{Passed: 1, Failed: 1}); sum != want {
		t.Errorf("fuel: summary %+v, want %+v", sum, want)
	}
	if !strings.Contains(out, "--- FAIL: spin_test.star/test_spin (0.00s)\n    test fuel: Traceback (most recent call last):\n      spin_test.star:2:5: in test_spin\n    Error: Starlark computation cancelled: fuel exhausted\n--- PASS: spin_test.star/test_after") {
		t.Errorf("fuel: output\n%s", out)
	}
	start := time.Now()
	sum, out = runTests(t, inline("spin_test.star", spin), TestOptions{Fuel: 1 << 50, Timeout: 50 * time.Millisecond})
	if want := (TestSummary{Passed: 1, Failed: 1}); sum != want {
		t.Errorf("timeout: summary %+v, want %+v", sum, want)
	}
	if !strings.Contains(out, "    test timeout: ") || !strings.Contains(out, "timeout after 50ms") {
		t.Errorf("timeout: output\n%s", out)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("timeout: took %v", d)
	}
	// The default per-test fuel still ends a test that never stops.
	sum, _ = runTests(t, inline("spin_test.star", spin), TestOptions{})
	if sum.Failed != 1 {
		t.Errorf("default limits: summary %+v", sum)
	}
}

func TestRunTestsFileErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"arity", "def test_x():\n    pass\n", "--- FAIL: e_test.star (0.00s)\n    e_test.star:1:1: test_x must take one parameter, t\nFAIL\te_test.star\t0.000s\n"},
		{"syntax", "def test_x(t)\n    pass\n", "--- FAIL: e_test.star (0.00s)\n    e_test.star:2:1: got newline, want ':'\nFAIL\te_test.star\t0.000s\n"},
		{"top level fails", "x = fail(\"no\")\n", "--- FAIL: e_test.star (0.00s)\n    initialising e_test.star: fail: no\nFAIL\te_test.star\t0.000s\n"},
		{"no Match forging in loads", "load(\"@corp//x.star\", \"x\")\n", "--- FAIL: e_test.star (0.00s)\n    e_test.star:1:6: load \"@corp//x.star\": no pack named \"corp\" is declared\nFAIL\te_test.star\t0.000s\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sum, out := runTests(t, inline("e_test.star", tc.src), TestOptions{})
			if want := (TestSummary{Failed: 1}); sum != want {
				t.Errorf("summary %+v, want %+v", sum, want)
			}
			wantOutput(t, out, tc.want)
		})
	}
	// No tests at all is not a failure.
	sum, out := runTests(t, inline("none_test.star", "x = 1\n"), TestOptions{})
	if sum != (TestSummary{}) || out != "" {
		t.Errorf("empty file: %+v %q", sum, out)
	}
}

func TestTestSummaryAdd(t *testing.T) {
	s := TestSummary{Passed: 1, Failed: 2}
	s.Add(TestSummary{Passed: 3, Skipped: 4})
	if s != (TestSummary{Passed: 4, Failed: 2, Skipped: 4}) {
		t.Errorf("Add: %+v", s)
	}
}

// t.context builds the command fields of shell-context-v1, with defaults
// for a plain command run in cwd, and refuses what it cannot read.
func TestTesterContextCommandFields(t *testing.T) {
	tt := &tester{rt: scriptTestRuntime(t)}
	env := builtins.Surface(builtins.KindMatcher)
	env["t"] = tt
	build := func(expr string) (starlark.Value, error) {
		v, err := starlark.EvalOptions(&syntax.FileOptions{}, &starlark.Thread{Name: "test"}, "x.star", expr, env)
		if err != nil {
			return nil, err
		}
		spec, ok := v.(*contextSpec)
		if !ok {
			t.Fatalf("%s: %s", expr, v.Type())
		}
		c := spec.c
		c.Phase = "shell_matcher"
		return c.Value(), nil
	}
	fields := func(v starlark.Value) string {
		var b strings.Builder
		for _, name := range []string{"home", "project", "dir", "redirects", "upstream", "layers", "implied", "dynamic"} {
			x, _ := v.(starlark.HasAttrs).Attr(name)
			b.WriteString(name + "=" + x.String() + " ")
		}
		return strings.TrimSpace(b.String())
	}
	tests := []struct{ expr, want string }{
		{`t.context(argv = ["/bin/rm", "-rf", "x"])`,
			`home="" project="" dir="/repo" redirects=() upstream=() layers=(("rm", "-rf", "x"),) implied="" dynamic=False`},
		{`t.context(argv = ["rm", "x"], cwd = "/w", home = "/h", project = "/w", redirects = [{"op": ">", "target": "f", "file": True, "write": True}, {"op": "2>&", "target": "1"}], upstream = [["curl", "x"], []], layers = [["sudo", "rm", "x"], ["rm", "x"]], implied = "find -delete", dynamic = True)`,
			`home="/h" project="/w" dir="/w" redirects=(shell_redirect(dynamic = False, file = True, op = ">", target = "f", write = True), shell_redirect(dynamic = False, file = False, op = "2>&", target = "1", write = False)) upstream=(("curl", "x"), ()) layers=(("sudo", "rm", "x"), ("rm", "x")) implied="find -delete" dynamic=True`},
		{`t.context(argv = ["ls"], cwd = "/w", dir = "/w/sub")`,
			`home="" project="" dir="/w/sub" redirects=() upstream=() layers=(("ls",),) implied="" dynamic=False`},
		{`t.context(argv = ["ls"], dir = "")`,
			`home="" project="" dir="" redirects=() upstream=() layers=(("ls",),) implied="" dynamic=False`},
	}
	for _, tc := range tests {
		v, err := build(tc.expr)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		if got := fields(v); got != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.expr, got, tc.want)
		}
	}
	errs := []struct{ expr, want string }{
		{`t.context(argv = ["ls"], dir = 1)`, `t.context: dir must be a string, not int`},
		{`t.context(argv = ["ls"], home = None)`, `t.context: for parameter "home": got NoneType, want string`},
		{`t.context(argv = ["ls"], dynamic = "yes")`, `t.context: for parameter "dynamic": got string, want bool`},
		{`t.context(argv = ["ls"], redirects = [{"op": ">", "path": "f"}])`, `t.context: redirects: want a list of dicts`},
		{`t.context(argv = ["ls"], redirects = [{"target": "f"}])`, `t.context: redirects: item 0 has no op`},
		{`t.context(argv = ["ls"], redirects = [{"op": ">", "write": "yes"}])`, `t.context: redirects: want a list of dicts`},
		{`t.context(argv = ["ls"], redirects = {"op": ">"})`, `t.context: redirects: want a list of dicts`},
		{`t.context(argv = ["ls"], upstream = ["curl x"])`, `t.context: upstream: item 0: want a list of strings, not string`},
		{`t.context(argv = ["ls"], upstream = "curl")`, `t.context: upstream: want a list of argv lists, not string`},
		{`t.context(argv = ["ls"], layers = [["sudo", "ls"]])`, `t.context: layers: the last layer must be argv ["ls"]`},
		{`t.context(argv = ["ls"], layers = [[], ["ls"]])`, `t.context: layers: item 0 is empty`},
		{`t.context(argv = ["ls"], layers = [])`, `t.context: layers: the last layer must be argv`},
		{`t.context(argv = "ls")`, `t.context: argv must be a non-empty list of strings`},
		{`t.context(argv = ["ls"], upsteam = [])`, `unexpected keyword argument "upsteam"`},
	}
	for _, tc := range errs {
		_, err := build(tc.expr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.expr, err, tc.want)
		}
	}
}
