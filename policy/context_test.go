package policy

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/hostapi"
)

// ctxDump answers yes with the command fields of ctx, as JSON.
const ctxDump = `def on_event(ctx, state):
    return Match.yes(json.encode({
        "argv": ctx.argv, "home": ctx.home, "project": ctx.project, "dir": ctx.dir,
        "redirects": [[r.op, r.target, r.file, r.write, r.dynamic] for r in ctx.redirects],
        "upstream": ctx.upstream, "layers": ctx.layers, "implied": ctx.implied, "dynamic": ctx.dynamic,
    }))
`

type ctxFields struct {
	Argv      []string   `json:"argv"`
	Home      string     `json:"home"`
	Project   string     `json:"project"`
	Dir       string     `json:"dir"`
	Redirects [][]any    `json:"redirects"`
	Upstream  [][]string `json:"upstream"`
	Layers    [][]string `json:"layers"`
	Implied   string     `json:"implied"`
	Dynamic   bool       `json:"dynamic"`
}

// ctxRuns decides command and returns what the dump matcher saw on each
// layer of each command, by its argv joined.
func ctxRuns(t *testing.T, e *Engine, command string, req Request) map[string]ctxFields {
	t.Helper()
	d := e.DecideRequest(command, req)
	out := map[string]ctxFields{}
	for _, run := range d.Extensions {
		if run.Outcome != "yes" {
			t.Fatalf("%q: run %+v", command, run)
		}
		var f ctxFields
		if err := json.Unmarshal([]byte(run.Reason), &f); err != nil {
			t.Fatalf("%q: %v in %q", command, err, run.Reason)
		}
		out[strings.Join(f.Argv, " ")] = f
	}
	return out
}

func dumpEngine(t *testing.T) *Engine {
	t.Helper()
	e := mustEngine(t, "", manifestHead+script("dump", "shell_matcher", ctxDump, "")+
		rule("r", ActionDeny, `{ script = "dump" }`))
	e.Root = "/home/dev/proj"
	return e
}

func TestMatcherCommandContext(t *testing.T) {
	req := Request{Cwd: "/home/dev/proj", Home: "/home/dev"}
	e := dumpEngine(t)
	runs := ctxRuns(t, e, "cd infra && sudo terraform destroy > plan.out 2>&1", req)
	outer, inner := runs["sudo terraform destroy"], runs["terraform destroy"]
	for _, f := range []ctxFields{outer, inner} {
		if f.Home != "/home/dev" || f.Project != "/home/dev/proj" || f.Dir != "/home/dev/proj/infra" || f.Implied != "" || f.Dynamic {
			t.Errorf("terraform: %+v", f)
		}
		if got := fmt.Sprint(f.Layers); got != "[[sudo terraform destroy] [terraform destroy]]" {
			t.Errorf("layers %s", got)
		}
		if got := fmt.Sprint(f.Redirects); got != "[[> plan.out true true false] [2>& 1 false false false]]" {
			t.Errorf("redirects %s", got)
		}
		if len(f.Upstream) != 0 {
			t.Errorf("upstream %q", f.Upstream)
		}
	}

	e = dumpEngine(t)
	runs = ctxRuns(t, e, "curl -s https://x | tee log | sudo sh", req)
	if f := runs["sh"]; fmt.Sprint(f.Upstream) != "[[curl -s https://x] [tee log]]" {
		t.Errorf("sh upstream %q", f.Upstream)
	}
	if f := runs["sudo sh"]; fmt.Sprint(f.Upstream) != "[[curl -s https://x] [tee log]]" {
		t.Errorf("sudo sh upstream %q", f.Upstream)
	}
	// Only a stage's own command has an upstream.
	runs = ctxRuns(t, e, "curl x | bash -c 'sh -c ls'", req)
	if f, ok := runs["sh -c ls"]; !ok || len(f.Upstream) != 0 {
		t.Errorf("sh in a stage's body: %+v (ran %v)", f, ok)
	}
	runs = ctxRuns(t, e, "sh -c ls", req)
	if f := runs["sh -c ls"]; len(f.Upstream) != 0 {
		t.Errorf("no pipeline: upstream %q", f.Upstream)
	}

	e = dumpEngine(t)
	runs = ctxRuns(t, e, "cd ~/src; find . -name '*.o' -delete", req)
	if f := runs["rm -r -f ."]; f.Implied != "find -delete" || f.Dir != "/home/dev/src" {
		t.Errorf("find -delete: %+v", f)
	}
	runs = ctxRuns(t, e, `cd "$X"; rm -rf $Y`, req)
	if f := runs["rm -rf $Y"]; f.Dir != "" || !f.Dynamic {
		t.Errorf("unknown dir, dynamic word: %+v", f)
	}
	runs = ctxRuns(t, e, "(cd /tmp/../etc && rm x); rm y", req)
	if f := runs["rm x"]; f.Dir != "/etc" {
		t.Errorf("rm x in a subshell: %+v", f)
	}
	if f := runs["rm y"]; f.Dir != "/home/dev/proj" {
		t.Errorf("rm y after it: %+v", f)
	}
	// Without HOME, ~ cannot be resolved; without a cwd, nothing can.
	runs = ctxRuns(t, e, "cd; rm x", Request{Cwd: "/p"})
	if f := runs["rm x"]; f.Dir != "" || f.Home != "" {
		t.Errorf("no HOME: %+v", f)
	}
	runs = ctxRuns(t, e, "rm x", Request{Home: "/h"})
	if f := runs["rm x"]; f.Dir != "" {
		t.Errorf("no cwd: %+v", f)
	}

	// A hook event takes HOME from the engine.
	e.Home = "/home/dev"
	d := e.DecideEvent(&hostapi.Event{Kind: hostapi.KindPreTool, Tool: hostapi.ToolBash, Agent: "claude", Cwd: "/home/dev/proj", Command: "cd ~ && rm x"})
	var f ctxFields
	if len(d.Extensions) != 2 || json.Unmarshal([]byte(d.Extensions[1].Reason), &f) != nil || f.Home != "/home/dev" || f.Dir != "/home/dev" {
		t.Errorf("DecideEvent: %+v", d.Extensions)
	}
}

// A command past the caps of any ctx field goes to the script's failure
// path; it is never cut.
func TestMatcherCommandContextCaps(t *testing.T) {
	e := dumpEngine(t)
	req := Request{Cwd: "/p", Home: "/h"}
	tests := []struct{ name, command, want string }{
		{"upstream stages", strings.Repeat("echo x | ", 257) + "sh", "earlier stages"},
		{"upstream words", "echo" + strings.Repeat(" x", 300) + " | sh", "upstream has 301 items"},
		{"redirections", "sh" + strings.Repeat(" >f", 257), "257 redirections"},
		{"redirection target", "sh > " + strings.Repeat("f", 16<<10+1), "bytes; scripts are given at most 16384"},
		{"layers", "sudo env" + strings.Repeat(" A=1", 300) + " sh", "layers has"},
		{"home", "sh", "home, project"},
	}
	for _, tt := range tests {
		r := req
		if tt.name == "home" {
			r.Home = "/" + strings.Repeat("h", 16<<10)
		}
		d := e.DecideRequest(tt.command, r)
		failed := false
		for _, run := range d.Extensions {
			if run.Outcome == "input" || strings.Contains(run.Error, tt.want) {
				failed = failed || strings.Contains(run.Error, tt.want)
			}
		}
		if !failed || d.Action != ActionDeny {
			t.Errorf("%s: %s (%s), runs %+v; want a failure saying %q and a deny", tt.name, d.Action, d.Reason, d.Extensions, tt.want)
		}
	}
}

// Reviewers and before-interceptors see the same command fields.
func TestReviewerAndInterceptorCommandContext(t *testing.T) {
	src := "\n[[script]]\nid = \"look\"\nkind = \"shell_reviewer\"\nsource = '''\n" +
		`def on_event(ctx, state):
    return Review.deny("|".join([ctx.home, ctx.dir, ctx.project, str(len(ctx.upstream)), str(len(ctx.layers)), str(len(ctx.redirects))]))
` + "'''\n\n[[reviewer]]\nscript = \"look\"\n"
	e := reviewEngine(t, t.TempDir(), reviewManifest(src))
	e.Root = "/w"
	r := req("s1")
	r.Home = "/h"
	d := e.DecideRequest("cd sub; echo x | sudo curl -s x > out", r)
	if want := "look: /h|/w/sub|/w|1|2|1"; d.Action != ActionDeny || d.Reason != want {
		t.Errorf("reviewer: %s (%s), want deny (%s)", d.Action, d.Reason, want)
	}

	ic := "version = 1\n\n[[script]]\nid = \"ic\"\nkind = \"shell_before_interceptor\"\nsource = '''\n" +
		`def on_event(ctx, state):
    return Intercept.reject("|".join([ctx.home, ctx.dir, ctx.project, ctx.implied]))
` + "'''\n\n[[interceptor]]\nscript = \"ic\"\nphase = \"before\"\nmatch = { basename = \"ls\" }\n"
	e2, root := icEngine(t, ic)
	d = e2.DecideRequest("cd /tmp && ls", Request{Cwd: root, Home: "/h", SessionID: "s1"})
	if want := "ic: /h|/tmp|" + root + "|"; d.Action != ActionDeny || !strings.Contains(d.Reason, want) {
		t.Errorf("interceptor: %s (%s), want deny with %q", d.Action, d.Reason, want)
	}
}
