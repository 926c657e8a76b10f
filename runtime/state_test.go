package runtime

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-shell/agent-shell/builtins"
	"github.com/agent-shell/agent-shell/state"
)

var manifestA, manifestB = strings.Repeat("a", 64), strings.Repeat("b", 64)

// counter counts its calls in state and fails in the ways argv[0] asks,
// after having changed its state.
const counter = `def on_event(ctx, state):
    state["n"] = state.get("n", 0) + 1
    state["last"] = ctx.argv[0]
    cmd = ctx.argv[0]
    print("n =", state["n"])
    if cmd == "boom":
        fail("boom")
    if cmd == "spin":
        for i in range(1000000000):
            pass
    if cmd == "bad":
        return None
    if cmd == "func":
        state["f"] = on_event
    if cmd == "big":
        state["big"] = ["x" * 10000] * 30
    return Review.approve()
`

type stateRig struct {
	t     *testing.T
	store *state.Store
	rt    *Runtime
	id    state.Identity
	lc    state.Lifecycle
}

func newStateRig(t *testing.T, lc state.Lifecycle, src string) *stateRig {
	t.Helper()
	store := state.Open(filepath.Join(t.TempDir(), "state"))
	return newStateRigOn(t, store, lc, src, manifestA)
}

func newStateRigOn(t *testing.T, store *state.Store, lc state.Lifecycle, src, manifest string) *stateRig {
	t.Helper()
	s := Script{ID: "counter", Kind: builtins.KindReviewer, File: "counter.star", Source: []byte(src),
		Lifecycle: lc, Limits: Limits{Fuel: 20_000, Timeout: 5 * time.Second}}
	rt := mustCompile(t, []Script{s}, Options{Store: store})
	rt.SetManifestDigest(manifest)
	return &stateRig{t: t, store: store, rt: rt, lc: lc,
		id: state.Identity{ScriptID: "counter", Kind: string(builtins.KindReviewer), SourceSHA256: sum(src), ManifestSHA256: manifest}}
}

func (r *stateRig) invoke(session, cmd string) Result {
	return r.rt.Invoke(context.Background(), "counter", ctxValue(builtins.KindReviewer, cmd), session)
}

// committed is the state on disk for session.
func (r *stateRig) committed(session string) map[string]any {
	r.t.Helper()
	st, err := r.store.Load(context.Background(), r.lc, session, r.id)
	if err != nil {
		r.t.Fatalf("Load: %v", err)
	}
	return st
}

// wantCount checks a state's counter and last command.
func wantCount(t *testing.T, what string, st map[string]any, n int64, last string) {
	t.Helper()
	if st["n"] != n || st["last"] != last {
		t.Errorf("%s: state %v, want n=%d last=%q", what, st, n, last)
	}
}

func TestStateSessionCommitsOnlyWithAnAction(t *testing.T) {
	r := newStateRig(t, state.Session, counter)
	for i := int64(1); i <= 3; i++ {
		res := r.invoke("sess-1", "ok")
		wantAction(t, "ok", res, "Review.approve()")
		wantCount(t, "result", res.State, i, "ok")
		if res.Output != fmt.Sprintf("n = %d\n", i) {
			t.Errorf("Output = %q", res.Output)
		}
	}
	wantCount(t, "committed", r.committed("sess-1"), 3, "ok")

	for _, tc := range []struct {
		cmd  string
		f    Failure
		want string
	}{
		{"boom", FailError, "boom"},
		{"spin", FailFuel, "out of fuel"},
		{"bad", FailMalformed, "returned None"},
		{"func", FailMalformed, `state["f"]: function is not data`},
		{"big", FailState, "state not committed"},
	} {
		res := r.invoke("sess-1", tc.cmd)
		wantFailure(t, tc.cmd, res, tc.f, tc.want)
		if tc.f != FailState {
			// The result carries the committed state, untouched.
			wantCount(t, tc.cmd+" result", res.State, 3, "ok")
		}
		if res.Output != "n = 4\n" {
			t.Errorf("%s: Output = %q, want what the call printed", tc.cmd, res.Output)
		}
		wantCount(t, tc.cmd+" committed", r.committed("sess-1"), 3, "ok")
	}

	res := r.invoke("sess-1", "ok")
	wantCount(t, "after the failures", res.State, 4, "ok")
	wantCount(t, "committed", r.committed("sess-1"), 4, "ok")

	// Another session has its own state.
	res = r.invoke("sess-2", "other")
	wantCount(t, "sess-2", res.State, 1, "other")
	wantCount(t, "sess-1 unchanged", r.committed("sess-1"), 4, "ok")

	// The snapshot is where the store says.
	p, err := r.store.Path(state.Session, "sess-1", r.id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Errorf("snapshot: %v", err)
	}
}

func TestStateRichValuesRoundTrip(t *testing.T) {
	src := `def on_event(ctx, state):
    if ctx.argv[0] == "set":
        state["data"] = {"list": [1, -2.5, "s", None, True], "tuple": (1, "x"), "nested": {"a": [], "b": {}}}
        return Review.approve()
    return Review.deny(json.encode(state["data"]))
`
	r := newStateRig(t, state.Session, src)
	wantAction(t, "set", r.invoke("s", "set"), "Review.approve()")
	res := r.invoke("s", "get")
	wantAction(t, "get", res, `Review.deny("{\"list\":[1,-2.5,\"s\",null,true],\"nested\":{\"a\":[],\"b\":{}},\"tuple\":[1,\"x\"]}")`)
	want := map[string]any{"data": map[string]any{
		"list":   []any{int64(1), -2.5, "s", nil, true},
		"tuple":  []any{int64(1), "x"},
		"nested": map[string]any{"a": []any{}, "b": map[string]any{}},
	}}
	if !reflect.DeepEqual(res.State, want) {
		t.Errorf("State = %#v\nwant %#v", res.State, want)
	}
}

func TestStateRuntimeLifecycle(t *testing.T) {
	r := newStateRig(t, state.Runtime, counter)
	for i, sess := range []string{"a", "b", "a", "c"} {
		res := r.invoke(sess, "ok")
		wantCount(t, "session "+sess, res.State, int64(i+1), "ok")
	}
	wantCount(t, "committed", r.committed(""), 4, "ok")

	// Another manifest digest: state written under the old one is not used.
	r2 := newStateRigOn(t, r.store, state.Runtime, counter, manifestB)
	wantCount(t, "other manifest", r2.invoke("a", "ok").State, 1, "ok")
	// The original's state is still there.
	wantCount(t, "original", r.invoke("a", "ok").State, 5, "ok")
	// Another source under the same id and manifest: neither.
	changed := counter + "# changed\n"
	r3 := newStateRigOn(t, r.store, state.Runtime, changed, manifestA)
	wantCount(t, "changed source", r3.invoke("a", "ok").State, 1, "ok")
}

// storeFiles lists the files under a store's folder.
func storeFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestStateInvocationLifecycleStartsFresh(t *testing.T) {
	for _, lc := range []state.Lifecycle{state.Invocation, ""} {
		r := newStateRig(t, lc, counter)
		for range 3 {
			res := r.invoke("sess-1", "ok")
			wantAction(t, "ok", res, "Review.approve()")
			wantCount(t, string(lc), res.State, 1, "ok")
		}
		if files := storeFiles(t, r.store.Dir()); len(files) != 0 {
			t.Errorf("lifecycle %q wrote %v", lc, files)
		}
	}
}

// A host that sends no session id (Copilot) still gets its session
// scripts run: with fresh state, none kept, and a note saying so.
func TestStateSessionWithoutSessionIDStartsFresh(t *testing.T) {
	r := newStateRig(t, state.Session, counter)
	for range 2 {
		res := r.invoke("", "ok")
		wantAction(t, "ok", res, "Review.approve()")
		wantCount(t, "no session", res.State, 1, "ok")
		if res.Note != "no session id: ran with fresh state, none kept" {
			t.Errorf("Note = %q", res.Note)
		}
	}
	if files := storeFiles(t, r.store.Dir()); len(files) != 0 {
		t.Errorf("a call without a session id wrote %v", files)
	}
	if res := r.invoke("sess-1", "ok"); res.Note != "" {
		t.Errorf("with a session id: Note = %q", res.Note)
	}
}

func TestStateRunStoresNothing(t *testing.T) {
	r := newStateRig(t, state.Session, counter)
	in := map[string]any{"n": int64(41), "keep": []any{"x"}}
	res := r.rt.Run(context.Background(), "counter", ctxValue(builtins.KindReviewer, "ok"), in)
	wantAction(t, "ok", res, "Review.approve()")
	if want := map[string]any{"n": int64(42), "last": "ok", "keep": []any{"x"}}; !reflect.DeepEqual(res.State, want) {
		t.Errorf("State = %v, want %v", res.State, want)
	}
	if want := map[string]any{"n": int64(41), "keep": []any{"x"}}; !reflect.DeepEqual(in, want) {
		t.Errorf("Run modified its input state: %v", in)
	}
	res = r.rt.Run(context.Background(), "counter", ctxValue(builtins.KindReviewer, "boom"), in)
	wantFailure(t, "boom", res, FailError, "boom")
	if !reflect.DeepEqual(res.State, in) {
		t.Errorf("a failed Run returned state %v, want its input %v", res.State, in)
	}
	res = r.rt.Run(context.Background(), "counter", ctxValue(builtins.KindReviewer, "ok"), nil)
	wantCount(t, "nil state", res.State, 1, "ok")
	if files := storeFiles(t, r.store.Dir()); len(files) != 0 {
		t.Errorf("Run wrote %v", files)
	}
	// State that is not data cannot be handed in.
	res = r.rt.Run(context.Background(), "counter", ctxValue(builtins.KindReviewer, "ok"), map[string]any{"c": make(chan int)})
	wantFailure(t, "chan", res, FailState, "is not data")
}

func TestStateNeedsIdentity(t *testing.T) {
	// Without a manifest digest a stored lifecycle cannot be keyed: the
	// call fails closed and the script does not run.
	store := state.Open(t.TempDir())
	s := Script{ID: "counter", Kind: builtins.KindReviewer, File: "counter.star", Source: []byte(counter), Lifecycle: state.Session}
	rt := mustCompile(t, []Script{s}, Options{Store: store})
	res := rt.Invoke(context.Background(), "counter", ctxValue(builtins.KindReviewer, "ok"), "sess-1")
	wantFailure(t, "no digest", res, FailState, "manifest")
	if res.Output != "" {
		t.Errorf("the script ran: %q", res.Output)
	}
}

func TestStateCorruptSnapshot(t *testing.T) {
	r := newStateRig(t, state.Session, counter)
	wantAction(t, "ok", r.invoke("s", "ok"), "Review.approve()")
	p, err := r.store.Path(state.Session, "s", r.id)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	res := r.invoke("s", "ok")
	wantFailure(t, "corrupt", res, FailState, "corrupt")
	if !errors.Is(res.Err, state.ErrCorrupt) {
		t.Errorf("error %v does not wrap state.ErrCorrupt", res.Err)
	}
}

func TestStateConcurrentRuntimes(t *testing.T) {
	// Two runtimes on one store, as two hook processes would be: no update
	// is lost.
	r := newStateRig(t, state.Session, counter)
	r2 := newStateRigOn(t, r.store, state.Session, counter, manifestA)
	var wg sync.WaitGroup
	for _, rig := range []*stateRig{r, r2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				if res := rig.invoke("s", "ok"); res.Action == nil {
					t.Errorf("concurrent invoke: %v", res.Err)
				}
			}
		}()
	}
	wg.Wait()
	wantCount(t, "committed", r.committed("s"), 20, "ok")
}

func TestDefaultLifecycle(t *testing.T) {
	want := map[builtins.Kind]state.Lifecycle{
		builtins.KindMatcher: state.Invocation, builtins.KindEffect: state.Invocation,
		builtins.KindReviewer: state.Session, builtins.KindBefore: state.Session,
		builtins.KindAfter: state.Session, builtins.KindAudit: state.Session,
	}
	for _, k := range builtins.Kinds() {
		if got := DefaultLifecycle(k); got != want[k] {
			t.Errorf("DefaultLifecycle(%s) = %q, want %q", k, got, want[k])
		}
	}
}
