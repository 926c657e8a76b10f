// Package otlphttp sends OTLP/HTTP JSON export requests with retry, and
// runs the export as the agent-shell-net helper. It links net/http and
// crypto/tls, which is why it lives apart from the agent-shell binary: the
// hook and the shim never load it.
package otlphttp

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agent-shell/agent-shell/telemetry/otlp"
)

// HTTPClient builds the client of cfg: the system's CAs plus CAFile's.
func HTTPClient(cfg otlp.Config) (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("OTLP certificate: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("OTLP certificate %s holds no PEM certificate", cfg.CAFile)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return &http.Client{Transport: tr, Timeout: cfg.Timeout}, nil
}

// Retry is the retry policy of one batch: a 5xx, a 429 or a connection
// error is tried again after an exponential backoff with full jitter (at
// least Retry-After when the server sends one), at most Attempts times in
// all; any other 4xx is permanent.
type Retry struct {
	Attempts int           // tries in all, at least 1
	Initial  time.Duration // the first backoff's ceiling
	Max      time.Duration // the largest backoff and the largest Retry-After honoured
	// Sleep waits d or until ctx ends (tests replace it).
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter returns a number in [0, 1) (tests replace it).
	Jitter func() float64
}

// DefaultRetry: 6 tries over about a minute at most.
func DefaultRetry() Retry {
	return Retry{Attempts: 6, Initial: time.Second, Max: 30 * time.Second, Sleep: sleepCtx, Jitter: rand.Float64}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// PermanentError is a refusal that retrying cannot change (a 4xx other than
// 429): the batch is not sent and the cursor stays before it.
type PermanentError struct {
	Status int
	Body   string
}

func (e *PermanentError) Error() string {
	return fmt.Sprintf("the Collector refused the records permanently: HTTP %d %s", e.Status, e.Body)
}

// TransientError is a failure that outlasted every retry.
type TransientError struct {
	Attempts int
	Last     error
}

func (e *TransientError) Error() string {
	return fmt.Sprintf("gave up after %d attempts: %v", e.Attempts, e.Last)
}

func (e *TransientError) Unwrap() error { return e.Last }

// Sender POSTs export requests with the retry policy.
type Sender struct {
	URL     string
	Headers map[string]string
	Client  *http.Client
	Retry   Retry
}

// Send posts body until it is accepted, refused permanently, or the retries
// are spent.
func (s *Sender) Send(ctx context.Context, body []byte) (otlp.Response, error) {
	rp := s.Retry
	if rp.Attempts < 1 {
		rp.Attempts = 1
	}
	var last error
	for attempt := 1; ; attempt++ {
		resp, retryAfter, err := s.post(ctx, body)
		if err == nil {
			return resp, nil
		}
		var perm *PermanentError
		if errors.As(err, &perm) || ctx.Err() != nil {
			return otlp.Response{}, err
		}
		last = err
		if attempt >= rp.Attempts {
			return otlp.Response{}, &TransientError{Attempts: attempt, Last: last}
		}
		ceiling := rp.Initial << (attempt - 1)
		if ceiling > rp.Max || ceiling <= 0 {
			ceiling = rp.Max
		}
		d := time.Duration(rp.Jitter() * float64(ceiling))
		if retryAfter > 0 {
			d = min(retryAfter, rp.Max)
		}
		if err := rp.Sleep(ctx, d); err != nil {
			return otlp.Response{}, err
		}
	}
}

// maxBody bounds what is read of a response.
const maxBody = 64 << 10

func (s *Sender) post(ctx context.Context, body []byte) (otlp.Response, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL, bytes.NewReader(body))
	if err != nil {
		return otlp.Response{}, 0, &PermanentError{Body: err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "agent-shell")
	for k, v := range s.Headers {
		req.Header.Set(k, v)
	}
	resp, err := s.Client.Do(req)
	if err != nil {
		return otlp.Response{}, 0, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		var ps struct {
			PartialSuccess struct {
				RejectedLogRecords json.Number `json:"rejectedLogRecords"`
				ErrorMessage       string      `json:"errorMessage"`
			} `json:"partialSuccess"`
		}
		var r otlp.Response
		if json.Unmarshal(b, &ps) == nil {
			r.Rejected, _ = ps.PartialSuccess.RejectedLogRecords.Int64()
			r.Message = ps.PartialSuccess.ErrorMessage
		}
		return r, 0, nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return otlp.Response{}, retryAfter(resp.Header.Get("Retry-After"), time.Now()),
			fmt.Errorf("HTTP %d %s", resp.StatusCode, snippet(b))
	default:
		return otlp.Response{}, 0, &PermanentError{Status: resp.StatusCode, Body: snippet(b)}
	}
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(h string, now time.Time) time.Duration {
	if h == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
