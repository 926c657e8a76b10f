package builtins

import (
	"fmt"
	"strings"
	"testing"
)

func TestKinds(t *testing.T) {
	want := []struct {
		k      Kind
		module string
	}{
		{KindMatcher, "Match"}, {KindReviewer, "Review"}, {KindBefore, "Intercept"},
		{KindAfter, "Result"}, {KindEffect, "Effect"}, {KindAudit, "Audit"},
	}
	got := Kinds()
	if len(got) != len(want) {
		t.Fatalf("Kinds() = %v", got)
	}
	for i, w := range want {
		if got[i] != w.k || !w.k.Valid() || w.k.Module() != w.module {
			t.Errorf("kind %d: got %q valid=%v module=%q, want %q %q", i, got[i], got[i].Valid(), got[i].Module(), w.k, w.module)
		}
	}
	got[0] = "x" // a copy
	if Kinds()[0] != KindMatcher {
		t.Error("Kinds returned shared storage")
	}
	for _, k := range []Kind{"", "matcher", "shell_after", "Shell_Matcher"} {
		if k.Valid() || k.Module() != "" || ActionModule(k) != nil || Surface(k) != nil {
			t.Errorf("kind %q should be invalid", k)
		}
	}
}

func TestConstructors(t *testing.T) {
	long := strings.Repeat("x", MaxString)
	tests := []struct {
		k    Kind
		expr string
		want Action
		str  string // String(); "" means the expression itself
	}{
		{KindMatcher, `Match.yes("terraform destroy")`, Action{Kind: KindMatcher, Op: "yes", Reason: "terraform destroy"}, ""},
		{KindMatcher, `Match.yes()`, Action{Kind: KindMatcher, Op: "yes"}, ""},
		{KindMatcher, `Match.no(reason = "plan")`, Action{Kind: KindMatcher, Op: "no", Reason: "plan"}, `Match.no("plan")`},
		{KindMatcher, `Match.no("` + long + `")`, Action{Kind: KindMatcher, Op: "no", Reason: long}, ""},
		{KindReviewer, `Review.approve()`, Action{Kind: KindReviewer, Op: "approve"}, ""},
		{KindReviewer, `Review.approve_for("exact_session")`, Action{Kind: KindReviewer, Op: "approve_for", Scope: "exact_session"}, ""},
		{KindReviewer, `Review.approve_for(scope = "durable_exact")`, Action{Kind: KindReviewer, Op: "approve_for", Scope: "durable_exact"}, `Review.approve_for("durable_exact")`},
		{KindReviewer, `Review.approve_for("once")`, Action{Kind: KindReviewer, Op: "approve_for", Scope: "once"}, ""},
		{KindReviewer, `Review.approve_for("prefix_session")`, Action{Kind: KindReviewer, Op: "approve_for", Scope: "prefix_session"}, ""},
		{KindReviewer, `Review.deny("no force pushes")`, Action{Kind: KindReviewer, Op: "deny", Reason: "no force pushes"}, ""},
		{KindReviewer, `Review.rewrite(["git", "push", ""])`, Action{Kind: KindReviewer, Op: "rewrite", Argv: []string{"git", "push", ""}}, ""},
		{KindReviewer, `Review.rewrite(("ls",))`, Action{Kind: KindReviewer, Op: "rewrite", Argv: []string{"ls"}}, `Review.rewrite(["ls"])`},
		{KindReviewer, `Review.defer()`, Action{Kind: KindReviewer, Op: "defer"}, ""},
		{KindBefore, `Intercept.proceed()`, Action{Kind: KindBefore, Op: "proceed"}, ""},
		{KindBefore, `Intercept.rewrite(["python3", "-I", "x.py"])`, Action{Kind: KindBefore, Op: "rewrite", Argv: []string{"python3", "-I", "x.py"}}, ""},
		{KindBefore, `Intercept.respond(stdout = "hi\n", stderr = "e", exit = 3)`, Action{Kind: KindBefore, Op: "respond", Stdout: "hi\n", Stderr: "e", Exit: 3}, ""},
		{KindBefore, `Intercept.respond("out")`, Action{Kind: KindBefore, Op: "respond", Stdout: "out"}, `Intercept.respond(stdout = "out")`},
		{KindBefore, `Intercept.respond(exit = 255)`, Action{Kind: KindBefore, Op: "respond", Exit: 255}, ""},
		{KindBefore, `Intercept.respond()`, Action{Kind: KindBefore, Op: "respond"}, ""},
		{KindBefore, `Intercept.respond(stdout = "` + strings.Repeat("o", MaxOutput) + `")`, Action{Kind: KindBefore, Op: "respond", Stdout: strings.Repeat("o", MaxOutput)}, ""},
		{KindBefore, `Intercept.reject("write a script file")`, Action{Kind: KindBefore, Op: "reject", Reason: "write a script file"}, ""},
		{KindAfter, `Result.keep()`, Action{Kind: KindAfter, Op: "keep"}, ""},
		{KindAfter, `Result.replace(stdout = "[hidden]")`, Action{Kind: KindAfter, Op: "replace", Stdout: "[hidden]"}, ""},
		{KindAfter, `Result.replace("a", "b")`, Action{Kind: KindAfter, Op: "replace", Stdout: "a", Stderr: "b"}, `Result.replace(stdout = "a", stderr = "b")`},
		{KindAfter, `Result.reject_disclosure("secret")`, Action{Kind: KindAfter, Op: "reject_disclosure", Reason: "secret"}, ""},
		{KindEffect, `Effect.add("network")`, Action{Kind: KindEffect, Op: "add", Effects: []string{"network"}}, `Effect.add(["network"])`},
		{KindEffect, `Effect.add(["read:/etc/passwd", "write:/tmp", "unknown:odd"])`, Action{Kind: KindEffect, Op: "add", Effects: []string{"read:/etc/passwd", "write:/tmp", "unknown:odd"}}, ""},
		{KindEffect, `Effect.add([])`, Action{Kind: KindEffect, Op: "add", Effects: []string{}}, ""},
		{KindEffect, `Effect.replace(["child_processes", "arbitrary_code"])`, Action{Kind: KindEffect, Op: "replace", Effects: []string{"child_processes", "arbitrary_code"}}, ""},
		{KindEffect, `Effect.replace([])`, Action{Kind: KindEffect, Op: "replace", Effects: []string{}}, ""},
		{KindEffect, `Effect.read_path("/repo/x")`, Action{Kind: KindEffect, Op: "add", Effects: []string{"read:/repo/x"}}, `Effect.add(["read:/repo/x"])`},
		{KindEffect, `Effect.write_path("out")`, Action{Kind: KindEffect, Op: "add", Effects: []string{"write:out"}}, `Effect.add(["write:out"])`},
		{KindEffect, `Effect.network()`, Action{Kind: KindEffect, Op: "add", Effects: []string{"network"}}, `Effect.add(["network"])`},
		{KindEffect, `Effect.child_processes()`, Action{Kind: KindEffect, Op: "add", Effects: []string{"child_processes"}}, `Effect.add(["child_processes"])`},
		{KindEffect, `Effect.arbitrary_code()`, Action{Kind: KindEffect, Op: "add", Effects: []string{"arbitrary_code"}}, `Effect.add(["arbitrary_code"])`},
		{KindEffect, `Effect.privilege_change()`, Action{Kind: KindEffect, Op: "add", Effects: []string{"privilege_change"}}, `Effect.add(["privilege_change"])`},
		{KindAudit, `Audit.keep()`, Action{Kind: KindAudit, Op: "keep"}, ""},
		{KindAudit, `Audit.drop_field("env")`, Action{Kind: KindAudit, Op: "drop_field", Field: "env"}, ""},
		{KindAudit, `Audit.replace({"z": "1", "command": "[x]"})`, Action{Kind: KindAudit, Op: "replace", Fields: map[string]string{"z": "1", "command": "[x]"}}, `Audit.replace({"command": "[x]", "z": "1"})`},
		{KindAudit, `Audit.replace({})`, Action{Kind: KindAudit, Op: "replace", Fields: map[string]string{}}, ""},
	}
	for _, tt := range tests {
		name := tt.expr
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			v, err := eval(Surface(tt.k), tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			a, ok := v.(*Action)
			if !ok {
				t.Fatalf("got %s, want action", v.Type())
			}
			if !a.Equal(&tt.want) {
				t.Errorf("got %#v, want %#v", *a, tt.want)
			}
			str := tt.str
			if str == "" {
				str = tt.expr
			}
			if a.String() != str {
				t.Errorf("String() = %s, want %s", clipRaw(a.String()), clipRaw(str))
			}
			// The rendering is a constructor call that makes an equal action.
			again, err := eval(Surface(tt.k), a.String())
			if err != nil {
				t.Fatalf("evaluating String(): %v", err)
			}
			if !again.(*Action).Equal(a) {
				t.Errorf("String() evaluates to %v", again)
			}
		})
	}
}

func TestConstructorErrors(t *testing.T) {
	tests := []struct {
		k    Kind
		expr string
		want string
	}{
		{KindMatcher, `Match.yes(1)`, "Match.yes: for parameter reason: got int, want string"},
		{KindMatcher, `Match.yes("a", "b")`, "Match.yes: got 2 arguments, want at most 1"},
		{KindMatcher, `Match.no(why = "x")`, "Match.no: unexpected keyword argument"},
		{KindMatcher, `Match.yes(` + big("x", MaxString+1) + `)`, "Match.yes: reason is 16385 bytes, more than 16384"},
		{KindMatcher, `Match.yes(b"x")`, "Match.yes: for parameter reason: got bytes, want string"},
		{KindReviewer, `Review.approve(1)`, "Review.approve: got 1 arguments, want 0"},
		{KindReviewer, `Review.approve_for("forever")`, `Review.approve_for: unknown scope "forever"`},
		{KindReviewer, `Review.approve_for()`, "Review.approve_for: missing argument for scope"},
		{KindReviewer, `Review.deny("")`, "Review.deny: reason must not be empty"},
		{KindReviewer, `Review.deny("  ")`, "Review.deny: reason must not be empty"},
		{KindReviewer, `Review.deny()`, "Review.deny: missing argument for reason"},
		{KindReviewer, `Review.deny(` + big("x", MaxString+1) + `)`, "Review.deny: reason is 16385 bytes"},
		{KindReviewer, `Review.rewrite([])`, "Review.rewrite: argv must not be empty"},
		{KindReviewer, `Review.rewrite(["", "x"])`, "Review.rewrite: argv[0] (the program) must not be empty"},
		{KindReviewer, `Review.rewrite("ls -l")`, "Review.rewrite: argv is string, want list or tuple of strings"},
		{KindReviewer, `Review.rewrite(["ls", 1])`, "Review.rewrite: argv[1] is int, want string"},
		{KindReviewer, `Review.rewrite(["ls", "a\0b"])`, "Review.rewrite: argv[1] contains a NUL byte"},
		{KindReviewer, `Review.rewrite(["ls", ` + big("x", MaxString+1) + `])`, "Review.rewrite: argv[1] is 16385 bytes"},
		{KindReviewer, `Review.rewrite(["x"] * 257)`, "Review.rewrite: argv has 257 items, more than 256"},
		{KindReviewer, `Review.defer("x")`, "Review.defer: got 1 arguments, want 0"},
		{KindBefore, `Intercept.proceed(x = 1)`, "Intercept.proceed: unexpected keyword arguments"},
		{KindBefore, `Intercept.rewrite([])`, "Intercept.rewrite: argv must not be empty"},
		{KindBefore, `Intercept.rewrite({"a": "b"})`, "Intercept.rewrite: argv is dict"},
		{KindBefore, `Intercept.respond(exit = 300)`, "Intercept.respond: exit 300 out of range 0..255"},
		{KindBefore, `Intercept.respond(exit = -1)`, "Intercept.respond: exit -1 out of range 0..255"},
		{KindBefore, `Intercept.respond(exit = "1")`, `Intercept.respond: for parameter "exit": got string, want int`},
		{KindBefore, `Intercept.respond(exit = 1 << 40)`, "Intercept.respond: exit 1099511627776 out of range 0..255"},
		{KindBefore, `Intercept.respond(exit = 1 << 80)`, `Intercept.respond: for parameter "exit"`},
		{KindBefore, `Intercept.respond(exit = True)`, `Intercept.respond: for parameter "exit": got bool, want int`},
		{KindBefore, `Intercept.respond(stdout = 1)`, `Intercept.respond: for parameter "stdout": got int, want string`},
		{KindBefore, `Intercept.respond(stdout = ` + big("o", MaxOutput+1) + `)`, "Intercept.respond: stdout is 262145 bytes, more than 262144"},
		{KindBefore, `Intercept.respond(stderr = ` + big("o", MaxOutput+1) + `)`, "Intercept.respond: stderr is 262145 bytes"},
		{KindBefore, `Intercept.reject("")`, "Intercept.reject: reason must not be empty"},
		{KindAfter, `Result.keep(1)`, "Result.keep: got 1 arguments, want 0"},
		{KindAfter, `Result.replace(exit = 1)`, "Result.replace: unexpected keyword argument"},
		{KindAfter, `Result.replace(stdout = ` + big("o", MaxOutput+1) + `)`, "Result.replace: stdout is 262145 bytes"},
		{KindAfter, `Result.reject_disclosure()`, "Result.reject_disclosure: missing argument for reason"},
		{KindAfter, `Result.reject_disclosure("")`, "Result.reject_disclosure: reason must not be empty"},
		{KindEffect, `Effect.add("net")`, `Effect.add: unknown effect "net"`},
		{KindEffect, `Effect.add("read:")`, `Effect.add: effect "read:" needs a path after the colon`},
		{KindEffect, `Effect.add("unknown:")`, `Effect.add: effect "unknown:" needs a reason after the colon`},
		{KindEffect, `Effect.add(["network", "Network"])`, `Effect.add: unknown effect "Network"`},
		{KindEffect, `Effect.add(["network", 1])`, `Effect.add: effects[1] is int, want string`},
		{KindEffect, `Effect.add(None)`, `Effect.add: effects is NoneType, want list or tuple of strings`},
		{KindEffect, `Effect.add(["network"] * 257)`, `Effect.add: effects has 257 items, more than 256`},
		{KindEffect, `Effect.add("read:/a\0b")`, `Effect.add: effect "read:/a\x00b" contains a NUL byte`},
		{KindEffect, `Effect.add("read:` + strings.Repeat("p", MaxString) + `")`, `Effect.add: effect is 16389 bytes`},
		{KindEffect, `Effect.replace("network")`, `Effect.replace: effects is string, want list or tuple`},
		{KindEffect, `Effect.read_path("")`, `Effect.read_path: effect "read:" needs a path`},
		{KindEffect, `Effect.write_path(1)`, `Effect.write_path: for parameter path: got int, want string`},
		{KindEffect, `Effect.network("x")`, `Effect.network: got 1 arguments, want 0`},
		{KindAudit, `Audit.drop_field("")`, `Audit.drop_field: field name must not be empty`},
		{KindAudit, `Audit.drop_field()`, `Audit.drop_field: missing argument for name`},
		{KindAudit, `Audit.replace([])`, `Audit.replace: for parameter fields: got list, want dict`},
		{KindAudit, `Audit.replace({1: "x"})`, `Audit.replace: field name 1 is int, want string`},
		{KindAudit, `Audit.replace({"": "x"})`, `Audit.replace: field name must not be empty`},
		{KindAudit, `Audit.replace({"a": 1})`, `Audit.replace: field "a" is int, want string`},
		{KindAudit, `Audit.replace({"a": ` + big("v", MaxString+1) + `})`, `Audit.replace: field "a" is 16385 bytes`},
		{KindAudit, `Audit.replace({str(i): "" for i in range(257)})`, `Audit.replace: 257 fields, more than 256`},
	}
	for _, tt := range tests {
		name := tt.expr
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			v, err := eval(Surface(tt.k), tt.expr)
			if err == nil {
				t.Fatalf("got %v, want error", v)
			}
			wantErr(t, tt.expr[:min(len(tt.expr), 60)], err, tt.want)
		})
	}
}

func TestActionValue(t *testing.T) {
	env := Surface(KindReviewer)
	tests := []struct{ expr, want string }{
		{`Review.deny("x") == Review.deny("x")`, "True"},
		{`Review.deny("x") != Review.deny("y")`, "True"},
		{`Review.deny("x") == Review.approve()`, "False"},
		{`Review.rewrite(["a", "b"]) == Review.rewrite(("a", "b"))`, "True"},
		{`Review.deny("x") == "deny"`, "False"},
		{`type(Review.approve())`, `"action"`},
		{`bool(Review.defer())`, "True"},
		{`Review.rewrite(["a", "b"]).argv`, `("a", "b")`},
		{`Review.approve_for("once").scope`, `"once"`},
		{`Review.deny("no").reason`, `"no"`},
		{`Review.deny("no").kind`, `"shell_reviewer"`},
		{`Review.deny("no").op`, `"deny"`},
		{`Review.deny("no").exit`, `0`},
		{`Review.deny("no").effects`, `()`},
		{`Review.deny("no").fields`, `{}`},
		{`dir(Review.approve())`, `["argv", "effects", "exit", "field", "fields", "kind", "op", "reason", "scope", "stderr", "stdout"]`},
		{`str(Review.approve_for("once"))`, `"Review.approve_for(\"once\")"`},
		{`json.decode(json.encode(Review.rewrite(["a"])))["argv"]`, `["a"]`},
	}
	for _, tt := range tests {
		v, err := eval(env, tt.expr)
		if err != nil {
			t.Errorf("%s: %v", tt.expr, err)
			continue
		}
		if v.String() != tt.want {
			t.Errorf("%s = %s, want %s", tt.expr, v, tt.want)
		}
	}
	match := Surface(KindMatcher)
	for expr, want := range map[string]string{
		`Match.yes("x") == Match.yes("x")`: "True",
		`Match.yes("x") != Match.no("x")`:  "True",
		`Match.yes("x") == Match.yes("y")`: "False",
	} {
		if v, err := eval(match, expr); err != nil || v.String() != want {
			t.Errorf("%s = %v, %v; want %s", expr, v, err, want)
		}
	}
	errs := []struct{ expr, want string }{
		{`Review.deny("x") < Review.deny("y")`, "action < action not implemented"},
		{`{Review.approve(): 1}`, "unhashable type: action"},
		{`Review.approve().nope`, "action has no .nope field or method"},
		{`Review.rewrite(["a"]).argv.append("b")`, "has no .append field or method"},
		{`Review.approve().fields.update({"a": "b"})`, "frozen"},
	}
	for _, tt := range errs {
		_, err := eval(env, tt.expr)
		wantErr(t, tt.expr, err, tt.want)
	}
	fields, err := eval(Surface(KindAudit), `Audit.replace({"b": "2", "a": "1"}).fields`)
	if err != nil || fields.String() != `{"a": "1", "b": "2"}` {
		t.Errorf("fields = %v, %v", fields, err)
	}
}

func TestActionEqualGo(t *testing.T) {
	a := &Action{Kind: KindEffect, Op: "add", Effects: nil}
	b := &Action{Kind: KindEffect, Op: "add", Effects: []string{}}
	if !a.Equal(b) {
		t.Error("nil and empty effects should be equal")
	}
	if a.Equal(nil) || !(*Action)(nil).Equal(nil) {
		t.Error("nil handling")
	}
	if (&Action{Kind: KindAudit, Op: "replace", Fields: map[string]string{"a": "1"}}).Equal(&Action{Kind: KindAudit, Op: "replace", Fields: map[string]string{"a": "2"}}) {
		t.Error("different fields compare equal")
	}
	if _, err := a.Hash(); err == nil {
		t.Error("Hash should fail")
	}
	// The shortcut effects are not shared between actions.
	env := Surface(KindEffect)
	v1, _ := eval(env, "Effect.network()")
	v1.(*Action).Effects[0] = "changed"
	v2, _ := eval(env, "Effect.network()")
	if got := v2.(*Action).Effects[0]; got != "network" {
		t.Errorf("shortcut effects shared: %q", got)
	}
	if s := fmt.Sprint(v2); s != `Effect.add(["network"])` {
		t.Errorf("Sprint = %s", s)
	}
}
