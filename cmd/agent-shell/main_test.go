package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agent-shell/agent-shell/enforce"
	"github.com/agent-shell/agent-shell/internal/nethelper"
	"github.com/agent-shell/agent-shell/internal/project"
	"github.com/agent-shell/agent-shell/policy"
	"github.com/agent-shell/agent-shell/telemetry/otlp/otlphttp"
)

var update = flag.Bool("u", false, "rewrite testscript files with the actual output of cmp")

// TestMain turns the test binary into the agent-shell binary when a script
// runs `exec agent-shell`, so the CLI tests run the real main in a real process.
func TestMain(m *testing.M) {
	// Tests that need a terminal start this binary as agent-shell itself.
	if os.Getenv(runAsMainEnv) == "1" {
		main()
	}
	testscript.Main(m, map[string]func(){
		"agent-shell": main,
		// The helper agent-shell export runs (agent-shell-net otlp ARGS).
		nethelper.Name: func() {
			if len(os.Args) < 2 || os.Args[1] != nethelper.ModeOTLP {
				os.Exit(2)
			}
			os.Exit(otlphttp.Main(os.Args[2:], os.Stdout, os.Stderr, os.Getenv))
		},
	})
}

const runAsMainEnv = "AGENT_SHELL_TEST_RUN_MAIN"

// hookexePin is the text pinexe replaces with the test executable's SHA-256.
const hookexePin = "HOOKEXE_PIN"

func TestScripts(t *testing.T) {
	exe, sum := buildHookexe(t)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		// Every script gets the test executable extension (the runtime's
		// hookexe, a Go program) as $WORK/hookexe, its pin as
		// $HOOKEXE_SHA256, and $WORK/.config as XDG_CONFIG_HOME.
		Setup: func(env *testscript.Env) error {
			b, err := os.ReadFile(exe)
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(env.WorkDir, "hookexe"), b, 0o755); err != nil {
				return err
			}
			env.Setenv("HOOKEXE_SHA256", sum)
			// Grants and script state live in the user's configuration
			// directory: each script has its own.
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, ".config"))
			// Tables show local time: the same zone on every machine.
			env.Setenv("TZ", "UTC")
			return nil
		},
		// [agentsession]: the test runs in an agent's session, where
		// authorize refuses to ask.
		Condition: func(cond string) (bool, error) {
			if cond == "agentsession" {
				return inAgentSession(), nil
			}
			// [sandbox]: agent-shell exec can sandbox here (enforce.Probe).
			if cond == "sandbox" {
				return sandboxLevel().Sandbox(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"authorize-on-terminal": authorizeOnTerminal,
			// statedir VAR: set VAR to the folder of the grants and script
			// state of the repository around the current directory.
			"statedir": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: statedir VAR")
				}
				dir, err := policy.StateDir(project.FindRoot(ts.MkAbs(".")), ts.Getenv)
				ts.Check(err)
				ts.Setenv(args[0], dir)
			},
			// listen VAR: accept TCP connections on a loopback port, set
			// in VAR, until the script ends; each gets "hello" back.
			"listen": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: listen VAR")
				}
				l, err := net.Listen("tcp4", "127.0.0.1:0")
				ts.Check(err)
				ts.Defer(func() { l.Close() })
				go func() {
					for {
						c, err := l.Accept()
						if err != nil {
							return
						}
						c.Write([]byte("hello\n"))
						c.Close()
					}
				}()
				ts.Setenv(args[0], fmt.Sprint(l.Addr().(*net.TCPAddr).Port))
			},
			// otlp-receiver VAR CODE...: an OTLP/HTTP logs endpoint on
			// loopback, its URL in VAR, until the script ends. It answers
			// the n-th request with the n-th CODE (the last one repeated)
			// and appends each accepted record's session/seq to
			// $WORK/otlp-received.
			"otlp-receiver": otlpReceiver,
			// pinexe FILE...: replace every HOOKEXE_PIN in each file with
			// the SHA-256 of $WORK/hookexe, so a manifest can pin it.
			// mode M: tell the fake model program of model_review.txtar
			// how to answer (the file .github/hooks/agent-shell/mode).
			"mode": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: mode M")
				}
				ts.Check(os.WriteFile(ts.MkAbs(".github/hooks/agent-shell/mode"), []byte(args[0]+"\n"), 0o644))
			},
			"pinexe": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg {
					ts.Fatalf("unsupported: ! pinexe")
				}
				if len(args) == 0 {
					ts.Fatalf("usage: pinexe FILE...")
				}
				for _, a := range args {
					p := ts.MkAbs(a)
					b, err := os.ReadFile(p)
					ts.Check(err)
					if !strings.Contains(string(b), hookexePin) {
						ts.Fatalf("pinexe: %s has no %s", a, hookexePin)
					}
					info, err := os.Stat(p)
					ts.Check(err)
					ts.Check(os.WriteFile(p, []byte(strings.ReplaceAll(string(b), hookexePin, sum)), info.Mode().Perm()))
				}
			},
		},
	})
}

// sandboxLevel is enforce.Probe, once.
var sandboxLevel = sync.OnceValue(enforce.Probe)

// buildHookexe builds runtime/testdata/hookexe once for the scripts and
// returns its path and SHA-256 (hex).
func buildHookexe(t *testing.T) (path, sum string) {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the scripts need the go command to build their test executable: %v", err)
	}
	path = filepath.Join(t.TempDir(), "hookexe")
	cmd := exec.Command(goBin, "build", "-o", path, "../../runtime/testdata/hookexe")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the test executable: %v\n%s", err, out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(b)
	return path, hex.EncodeToString(h[:])
}

func otlpReceiver(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: otlp-receiver VAR CODE...")
	}
	var codes []int
	for _, c := range args[1:] {
		n, err := strconv.Atoi(c)
		ts.Check(err)
		codes = append(codes, n)
	}
	out := ts.MkAbs("otlp-received")
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		code := codes[min(calls, len(codes)-1)]
		calls++
		if code/100 != 2 {
			http.Error(w, "refused by the test receiver", code)
			return
		}
		var req struct {
			ResourceLogs []struct {
				ScopeLogs []struct {
					LogRecords []struct {
						Attributes []struct {
							Key   string
							Value map[string]any
						}
					}
				}
			}
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/v1/logs" {
			http.Error(w, "bad request", 400)
			return
		}
		f, err := os.OpenFile(out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		defer f.Close()
		for _, rl := range req.ResourceLogs {
			for _, sl := range rl.ScopeLogs {
				for _, lr := range sl.LogRecords {
					var sess, seq any
					for _, a := range lr.Attributes {
						switch a.Key {
						case "agent_shell.session_id":
							sess = a.Value["stringValue"]
						case "agent_shell.seq":
							seq = a.Value["intValue"]
						}
					}
					fmt.Fprintf(f, "%v/%v\n", sess, seq)
				}
			}
		}
		w.Write([]byte("{}"))
	}))
	ts.Defer(srv.Close)
	ts.Setenv(args[0], srv.URL)
}

// The runtime's GOMAXPROCS updater is off in the binary (//go:debug in
// main.go): a hook call would pay for starting it.
func TestNoGOMAXPROCSUpdater(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build information")
	}
	for _, s := range bi.Settings {
		if s.Key == "DefaultGODEBUG" && slices.Contains(strings.Split(s.Value, ","), "updatemaxprocs=0") {
			return
		}
	}
	t.Errorf("the binary's default GODEBUG does not turn the GOMAXPROCS updater off")
}
