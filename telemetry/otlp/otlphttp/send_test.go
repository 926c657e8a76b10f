package otlphttp

import (
	"context"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-shell/agent-shell/telemetry/otlp"
)

// script answers the n-th request (1-based) with answers[n-1], the last
// one repeated; "close" drops the connection unanswered.
type script struct {
	answers []func(w http.ResponseWriter)
	n       atomic.Int32
	mu      sync.Mutex
	headers http.Header
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	i := int(s.n.Add(1)) - 1
	s.mu.Lock()
	s.headers = r.Header.Clone()
	s.mu.Unlock()
	s.answers[min(i, len(s.answers)-1)](w)
}

func status(code int, hdr ...string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for i := 0; i+1 < len(hdr); i += 2 {
			w.Header().Set(hdr[i], hdr[i+1])
		}
		w.WriteHeader(code)
		w.Write([]byte(`{}`))
	}
}

func body(code int, b string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.WriteHeader(code)
		w.Write([]byte(b))
	}
}

func hangUp(w http.ResponseWriter) {
	c, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		c.Close()
	}
}

// sender returns a Sender to srv whose sleeps are recorded, not slept.
func sender(srv *httptest.Server, attempts int) (*Sender, *[]time.Duration) {
	var slept []time.Duration
	s := &Sender{URL: srv.URL + "/v1/logs", Client: srv.Client(), Headers: map[string]string{"Authorization": "Bearer t"}, Retry: Retry{
		Attempts: attempts, Initial: time.Second, Max: 3 * time.Second,
		Sleep:  func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil },
		Jitter: func() float64 { return 1 },
	}}
	return s, &slept
}

func TestRetryAfterHonoured(t *testing.T) {
	sc := &script{answers: []func(http.ResponseWriter){status(503, "Retry-After", "2"), status(429, "Retry-After", "120"), status(200)}}
	srv := httptest.NewServer(sc)
	defer srv.Close()
	s, slept := sender(srv, 5)
	if _, err := s.Send(context.Background(), []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	// 2s as asked; 120s capped at Max.
	if len(*slept) != 2 || (*slept)[0] != 2*time.Second || (*slept)[1] != 3*time.Second {
		t.Fatalf("slept %v", *slept)
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.headers.Get("Authorization") != "Bearer t" || sc.headers.Get("Content-Type") != "application/json" {
		t.Fatalf("headers %v", sc.headers)
	}
}

func TestRetryAfterDate(t *testing.T) {
	if d := retryAfter(time.Unix(1000, 0).UTC().Format(http.TimeFormat), time.Unix(990, 0)); d != 10*time.Second {
		t.Fatalf("retryAfter(date) = %v", d)
	}
	if d := retryAfter("soon", time.Now()); d != 0 {
		t.Fatalf("retryAfter(garbage) = %v", d)
	}
}

func TestBackoffThenGiveUp(t *testing.T) {
	sc := &script{answers: []func(http.ResponseWriter){status(500), hangUp, status(502)}}
	srv := httptest.NewServer(sc)
	defer srv.Close()
	s, slept := sender(srv, 5)
	_, err := s.Send(context.Background(), []byte(`{}`))
	var te *TransientError
	if !errors.As(err, &te) || te.Attempts != 5 {
		t.Fatalf("err = %v", err)
	}
	// Exponential ceilings (jitter 1 = the ceiling): 1s, 2s, then Max.
	want := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second}
	if len(*slept) != len(want) {
		t.Fatalf("slept %v, want %v", *slept, want)
	}
	for i := range want {
		if (*slept)[i] != want[i] {
			t.Fatalf("slept %v, want %v", *slept, want)
		}
	}
	if sc.n.Load() != 5 {
		t.Fatalf("%d requests", sc.n.Load())
	}
}

func TestJitterIsFull(t *testing.T) {
	sc := &script{answers: []func(http.ResponseWriter){status(503), status(200)}}
	srv := httptest.NewServer(sc)
	defer srv.Close()
	s, slept := sender(srv, 5)
	s.Retry.Jitter = func() float64 { return 0.25 }
	if _, err := s.Send(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if (*slept)[0] != 250*time.Millisecond {
		t.Fatalf("slept %v", *slept)
	}
}

func TestClientErrorIsPermanent(t *testing.T) {
	sc := &script{answers: []func(http.ResponseWriter){body(400, "bad attribute")}}
	srv := httptest.NewServer(sc)
	defer srv.Close()
	s, slept := sender(srv, 5)
	_, err := s.Send(context.Background(), []byte(`{}`))
	var pe *PermanentError
	if !errors.As(err, &pe) || pe.Status != 400 || pe.Body != "bad attribute" || len(*slept) != 0 || sc.n.Load() != 1 {
		t.Fatalf("err = %v, slept %v, %d requests", err, *slept, sc.n.Load())
	}
}

func TestPartialSuccess(t *testing.T) {
	for _, b := range []string{`{"partialSuccess":{"rejectedLogRecords":"2","errorMessage":"too old"}}`, `{"partialSuccess":{"rejectedLogRecords":2,"errorMessage":"too old"}}`} {
		srv := httptest.NewServer(&script{answers: []func(http.ResponseWriter){body(200, b)}})
		s, _ := sender(srv, 1)
		r, err := s.Send(context.Background(), nil)
		srv.Close()
		if err != nil || r.Rejected != 2 || r.Message != "too old" {
			t.Fatalf("%s: %+v %v", b, r, err)
		}
	}
}

func TestCustomCA(t *testing.T) {
	srv := httptest.NewTLSServer(&script{answers: []func(http.ResponseWriter){status(200)}})
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600)
	send := func(cfg otlp.Config) error {
		c, err := HTTPClient(cfg)
		if err != nil {
			return err
		}
		s, _ := sender(srv, 1)
		s.Client = c
		_, err = s.Send(context.Background(), nil)
		return err
	}
	if err := send(otlp.Config{Timeout: 5 * time.Second}); err == nil {
		t.Fatal("an unknown CA was trusted")
	}
	if err := send(otlp.Config{CAFile: ca, Timeout: 5 * time.Second}); err != nil {
		t.Fatalf("with OTEL_EXPORTER_OTLP_CERTIFICATE: %v", err)
	}
	os.WriteFile(ca, []byte("not pem"), 0o600)
	if _, err := HTTPClient(otlp.Config{CAFile: ca}); err == nil {
		t.Fatal("a CA file without a certificate was accepted")
	}
}
