// Command hookexe is the executable extension the runtime's tests drive.
// It reads one shell-hook-json-v1 request and does what the payload's
// "mode" says:
//
//	reply   writes payload.reply with version 1 and the request's id added
//	raw     writes payload.raw (or the bytes of base64 payload.raw_b64)
//	        with every REQUEST_ID replaced by the request's id
//	echo    answers respond with the request as it read it, as stdout
//	env     answers respond with a JSON report of its environment, argv,
//	        working directory and /proc/self/limits as stdout
//	tamper  answers respond with the errors of trying to change its own
//	        bytes through descriptor 3
//	exit    writes payload.stderr to stderr and exits with payload.code
//	flood   writes to stdout forever
//	sleep   sleeps payload.ms milliseconds, then answers continue
//	fork    starts /bin/sleep, writes its pid and its own to hook.pid in
//	        the working directory, and sleeps forever
//	linger  starts /bin/sleep holding its stdout, writes the pids to
//	        hook.pid, answers continue and exits
//	escape  does what linger does, with the sleep in a new session
//	alloc   allocates and touches payload.mib MiB, then answers continue
//	spin    burns CPU forever
//
// A payload with no "mode" (agent-shell builds the payloads on the CLI path,
// so a test cannot put one there) is answered from hookexe-<hook_id>.json in
// the working directory: a JSON object, the reply without version and
// request_id, which it adds. The request line is first appended to
// hookexe-<hook_id>.requests there, so a test can see what it was sent.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

type request struct {
	HookID    string         `json:"hook_id"`
	Kind      string         `json:"kind"`
	Payload   map[string]any `json:"payload"`
	RequestID string         `json:"request_id"`
	Version   int            `json:"version"`
}

func main() {
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		fatal("reading stdin: %v", err)
	}
	var req request
	if err := json.Unmarshal(in, &req); err != nil {
		fatal("decoding the request: %v", err)
	}
	p := req.Payload
	action := "action"
	if req.Kind == "reviewer" {
		action = "decision"
	}
	answer := func(r map[string]any) {
		r["version"] = 1
		r["request_id"] = req.RequestID
		b, err := json.Marshal(r)
		if err != nil {
			fatal("encoding: %v", err)
		}
		os.Stdout.Write(b)
	}
	respond := func(stdout string) {
		answer(map[string]any{"action": "respond", "status": map[string]any{"exited": 0}, "stdout": stdout, "stderr": ""})
	}
	proceed := func() { answer(map[string]any{action: "continue"}) }

	if _, ok := p["mode"]; !ok {
		fromFile(req.HookID, in, answer)
		return
	}
	switch mode, _ := p["mode"].(string); mode {
	case "reply":
		r, _ := p["reply"].(map[string]any)
		if r == nil {
			fatal("no reply")
		}
		answer(r)
	case "raw":
		var raw []byte
		if s, ok := p["raw_b64"].(string); ok {
			if raw, err = base64.StdEncoding.DecodeString(s); err != nil {
				fatal("raw_b64: %v", err)
			}
		} else {
			s, _ := p["raw"].(string)
			raw = []byte(s)
		}
		os.Stdout.Write(bytes.ReplaceAll(raw, []byte("REQUEST_ID"), []byte(req.RequestID)))
	case "echo":
		respond(string(in))
	case "env":
		wd, _ := os.Getwd()
		limits, _ := os.ReadFile("/proc/self/limits")
		b, _ := json.Marshal(map[string]any{"env": os.Environ(), "args": os.Args, "cwd": wd, "limits": string(limits)})
		respond(string(b))
	case "tamper":
		var errs []string
		if f, err := os.OpenFile("/proc/self/fd/3", os.O_WRONLY, 0); err != nil {
			errs = append(errs, "open: "+err.Error())
		} else {
			_, err := f.Write([]byte("x"))
			errs = append(errs, fmt.Sprintf("write: %v", err))
		}
		f := os.NewFile(3, "fd3")
		_, err := f.WriteAt([]byte("x"), 0)
		errs = append(errs, fmt.Sprintf("fd 3 write: %v", err))
		respond(strings.Join(errs, "\n"))
	case "exit":
		s, _ := p["stderr"].(string)
		n, _ := p["repeat"].(float64)
		os.Stderr.WriteString(strings.Repeat(s, max(1, int(n))))
		code, _ := p["code"].(float64)
		os.Exit(int(code))
	case "flood":
		b := bytes.Repeat([]byte(" "), 64<<10)
		for {
			if _, err := os.Stdout.Write(b); err != nil {
				os.Exit(3)
			}
		}
	case "sleep":
		ms, _ := p["ms"].(float64)
		time.Sleep(time.Duration(ms) * time.Millisecond)
		proceed()
	case "fork", "linger", "escape":
		cmd := exec.Command("/bin/sleep", "30")
		if mode != "fork" {
			cmd.Stdout = os.Stdout
		}
		if mode == "escape" {
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		}
		if err := cmd.Start(); err != nil {
			fatal("start: %v", err)
		}
		if err := os.WriteFile("hook.pid", fmt.Appendf(nil, "%d %d", os.Getpid(), cmd.Process.Pid), 0o644); err != nil {
			fatal("%v", err)
		}
		if mode != "fork" {
			proceed()
			os.Exit(0)
		}
		time.Sleep(time.Hour)
	case "alloc":
		mib, _ := p["mib"].(float64)
		b := make([]byte, int(mib)<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		proceed()
	case "spin":
		for n := 0; ; n++ {
			_ = n * n
		}
	default:
		fatal("unknown mode %q", mode)
	}
}

// fromFile appends the request to hookexe-<id>.requests and answers with
// the object in hookexe-<id>.json.
func fromFile(id string, in []byte, answer func(map[string]any)) {
	if id == "" || strings.ContainsAny(id, "/\x00") || id == "." || id == ".." {
		fatal("hook_id %q cannot name a file", id)
	}
	f, err := os.OpenFile("hookexe-"+id+".requests", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fatal("%v", err)
	}
	line := append(bytes.TrimRight(in, "\n"), '\n')
	if _, err := f.Write(line); err != nil {
		fatal("%v", err)
	}
	if err := f.Close(); err != nil {
		fatal("%v", err)
	}
	b, err := os.ReadFile("hookexe-" + id + ".json")
	if err != nil {
		fatal("%v", err)
	}
	var r map[string]any
	if err := json.Unmarshal(b, &r); err != nil || r == nil {
		fatal("hookexe-%s.json is not a JSON object: %v", id, err)
	}
	answer(r)
}

func fatal(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "hookexe: "+format+"\n", args...)
	os.Exit(1)
}
