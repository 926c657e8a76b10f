package report

// A small Chrome DevTools Protocol client over --remote-debugging-pipe, for
// the browser tests: the browser reads commands on its fd 3 and writes
// replies and events on its fd 4, each a JSON object ended by a NUL byte.

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// chromiumPath is Debian's chromium, or the test is skipped.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium is not installed, so the report cannot be checked in a browser (apt-get install chromium; .ci/run installs it)")
	return ""
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *cdpError       `json:"error,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
}

type cdpError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// browser is one headless chromium and one page in it.
type browser struct {
	t       *testing.T
	cmd     *exec.Cmd
	in      *os.File // the browser's fd 3
	stderr  *strings.Builder
	session string

	mu       sync.Mutex
	next     int
	pending  map[int]chan cdpMessage
	errs     []string // console errors, exceptions, error log entries
	requests []string // every request's URL
	loaded   chan struct{}
	done     chan struct{}
}

func startBrowser(t *testing.T) *browser {
	t.Helper()
	path := chromiumPath(t)
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	b := &browser{t: t, in: cmdW, stderr: &strings.Builder{}, pending: map[int]chan cdpMessage{},
		loaded: make(chan struct{}, 16), done: make(chan struct{})}
	b.cmd = exec.Command(path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--no-default-browser-check",
		"--disable-extensions", "--mute-audio", "--user-data-dir="+t.TempDir(), "--remote-debugging-pipe",
		"--window-size=1280,900", "about:blank")
	b.cmd.ExtraFiles = []*os.File{cmdR, outW}
	b.cmd.Stderr = &lockedWriter{b: b.stderr}
	if err := b.cmd.Start(); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	cmdR.Close()
	outW.Close()
	go b.read(outR)
	t.Cleanup(b.close)

	var target struct {
		TargetID string `json:"targetId"`
	}
	b.callRoot("Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	b.callRoot("Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
	for _, domain := range []string{"Runtime", "Log", "Network", "Page"} {
		b.call(domain+".enable", nil, nil)
	}
	return b
}

type lockedWriter struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (b *browser) close() {
	b.mu.Lock()
	id := b.next + 1
	b.next = id
	b.mu.Unlock()
	msg, _ := json.Marshal(cdpMessage{ID: id, Method: "Browser.close"})
	b.in.Write(append(msg, 0))
	b.in.Close()
	exited := make(chan struct{})
	go func() { b.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		b.cmd.Process.Kill()
		<-exited
	}
}

// read dispatches the browser's messages: replies to their callers,
// events to the page's record.
func (b *browser) read(r *os.File) {
	defer close(b.done)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m cdpMessage
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		if m.ID != 0 {
			b.mu.Lock()
			ch := b.pending[m.ID]
			delete(b.pending, m.ID)
			b.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		b.event(m)
	}
}

func (b *browser) event(m cdpMessage) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch m.Method {
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
		}
		json.Unmarshal(m.Params, &p)
		if p.Type == "error" || p.Type == "assert" {
			b.errs = append(b.errs, fmt.Sprintf("console.%s: %v", p.Type, p.Args))
		}
	case "Runtime.exceptionThrown":
		b.errs = append(b.errs, "exception: "+string(m.Params))
	case "Log.entryAdded":
		var p struct {
			Entry struct {
				Level, Source, Text, URL string
			} `json:"entry"`
		}
		json.Unmarshal(m.Params, &p)
		if p.Entry.Level == "error" {
			b.errs = append(b.errs, fmt.Sprintf("log (%s): %s %s", p.Entry.Source, p.Entry.Text, p.Entry.URL))
		}
	case "Network.requestWillBeSent":
		var p struct {
			Request struct {
				URL string `json:"url"`
			} `json:"request"`
		}
		json.Unmarshal(m.Params, &p)
		b.requests = append(b.requests, p.Request.URL)
	case "Page.loadEventFired":
		select {
		case b.loaded <- struct{}{}:
		default:
		}
	}
}

func (b *browser) send(session, method string, params any, result any) error {
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan cdpMessage, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	var rawParams json.RawMessage
	if params != nil {
		rawParams, _ = json.Marshal(params)
	}
	msg, _ := json.Marshal(cdpMessage{ID: id, Method: method, Params: rawParams, SessionID: session})
	if _, err := b.in.Write(append(msg, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		if result != nil {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	case <-b.done:
		return fmt.Errorf("%s: chromium exited: %s", method, b.stderr.String())
	case <-time.After(60 * time.Second):
		return fmt.Errorf("%s: no answer in 60s", method)
	}
}

func (b *browser) callRoot(method string, params, result any) {
	b.t.Helper()
	if err := b.send("", method, params, result); err != nil {
		b.t.Fatal(err)
	}
}

func (b *browser) call(method string, params, result any) {
	b.t.Helper()
	if err := b.send(b.session, method, params, result); err != nil {
		b.t.Fatal(err)
	}
}

// eval evaluates a JavaScript expression in the page and decodes its
// value into out.
func (b *browser) eval(expr string, out any) {
	b.t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	b.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r)
	if r.Exception != nil {
		b.t.Fatalf("evaluate %s: %s %s", expr, r.Exception.Text, r.Exception.Exception.Description)
	}
	if out != nil {
		if err := json.Unmarshal(r.Result.Value, out); err != nil {
			b.t.Fatalf("evaluate %s: %v (value %s)", expr, err, r.Result.Value)
		}
	}
}

// open navigates to a file and waits until the report says it is ready.
func (b *browser) open(path string, timeout time.Duration) {
	b.t.Helper()
	b.call("Page.navigate", map[string]any{"url": "file://" + path}, nil)
	deadline := time.Now().Add(timeout)
	for {
		var ready string
		b.eval(`(document.body && document.body.dataset.ready) || ""`, &ready)
		switch ready {
		case "1":
			return
		case "error":
			var msg string
			b.eval(`document.getElementById('problem').textContent`, &msg)
			b.t.Fatalf("the report failed: %s", msg)
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("the report was not ready after %s; errors: %v", timeout, b.problems())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (b *browser) problems() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errs...)
}

func (b *browser) urls() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.requests...)
}

// screenshot returns a PNG of the viewport.
func (b *browser) screenshot() []byte {
	b.t.Helper()
	var r struct {
		Data string `json:"data"`
	}
	b.call("Page.captureScreenshot", map[string]any{"format": "png"}, &r)
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		b.t.Fatal(err)
	}
	if len(png) == 0 {
		b.t.Fatal(errors.New("empty screenshot"))
	}
	return png
}
