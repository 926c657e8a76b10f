package otlp

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
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Config is where and how logs are sent.
type Config struct {
	URL     string            // the full URL records are POSTed to (…/v1/logs)
	Headers map[string]string // extra request headers
	CAFile  string            // a PEM file of extra trusted CAs
	Timeout time.Duration     // per request
}

// ConfigFromEnv reads the endpoint: AGENTSHELL_OTLP_ENDPOINT (+ /v1/logs),
// else OTEL_EXPORTER_OTLP_LOGS_ENDPOINT (the full URL), else
// OTEL_EXPORTER_OTLP_ENDPOINT (+ /v1/logs); headers from
// OTEL_EXPORTER_OTLP_HEADERS then OTEL_EXPORTER_OTLP_LOGS_HEADERS (k=v,k=v,
// percent-decoded); the CA from OTEL_EXPORTER_OTLP_LOGS_CERTIFICATE or
// OTEL_EXPORTER_OTLP_CERTIFICATE; the timeout (milliseconds) from
// OTEL_EXPORTER_OTLP_LOGS_TIMEOUT or OTEL_EXPORTER_OTLP_TIMEOUT, default
// 10s. ok is false when no endpoint is set.
func ConfigFromEnv(getenv func(string) string) (cfg Config, ok bool, err error) {
	switch {
	case getenv("AGENTSHELL_OTLP_ENDPOINT") != "":
		cfg.URL = appendPath(getenv("AGENTSHELL_OTLP_ENDPOINT"))
	case getenv("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT") != "":
		cfg.URL = getenv("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT")
	case getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "":
		cfg.URL = appendPath(getenv("OTEL_EXPORTER_OTLP_ENDPOINT"))
	default:
		return cfg, false, nil
	}
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return cfg, true, fmt.Errorf("OTLP endpoint %q is not an http(s) URL", cfg.URL)
	}
	cfg.Headers = map[string]string{}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_LOGS_HEADERS"} {
		if err := parseHeaders(getenv(name), cfg.Headers); err != nil {
			return cfg, true, fmt.Errorf("%s: %w", name, err)
		}
	}
	cfg.CAFile = firstSet(getenv, "OTEL_EXPORTER_OTLP_LOGS_CERTIFICATE", "OTEL_EXPORTER_OTLP_CERTIFICATE")
	cfg.Timeout = 10 * time.Second
	if t := firstSet(getenv, "OTEL_EXPORTER_OTLP_LOGS_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"); t != "" {
		ms, err := strconv.Atoi(t)
		if err != nil || ms <= 0 {
			return cfg, true, fmt.Errorf("OTLP timeout %q is not a positive number of milliseconds", t)
		}
		cfg.Timeout = time.Duration(ms) * time.Millisecond
	}
	return cfg, true, nil
}

func firstSet(getenv func(string) string, names ...string) string {
	for _, n := range names {
		if v := getenv(n); v != "" {
			return v
		}
	}
	return ""
}

func appendPath(base string) string {
	return strings.TrimRight(base, "/") + "/v1/logs"
}

// parseHeaders adds the k=v,k=v pairs of s (W3C baggage style: keys and
// values percent-encoded) to h.
func parseHeaders(s string, h map[string]string) error {
	for _, pair := range strings.Split(s, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, "=")
		if !ok {
			return fmt.Errorf("%q is not key=value", pair)
		}
		k, err := url.PathUnescape(strings.TrimSpace(k))
		if err != nil || k == "" {
			return fmt.Errorf("bad header name in %q", pair)
		}
		v, err = url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("bad header value for %s", k)
		}
		h[k] = v
	}
	return nil
}

// HTTPClient builds the client: the system's CAs plus CAFile's.
func (cfg Config) HTTPClient() (*http.Client, error) {
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

// Response is what a 2xx said: how many records it rejected (OTLP partial
// success) and why.
type Response struct {
	Rejected int64
	Message  string
}

// Sender POSTs export requests with the retry policy.
type Sender struct {
	URL     string
	Headers map[string]string
	Client  *http.Client
	Retry   Retry
}

// Send posts body until it is accepted, refused permanently, or the retries
// are spent.
func (s *Sender) Send(ctx context.Context, body []byte) (Response, error) {
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
			return Response{}, err
		}
		last = err
		if attempt >= rp.Attempts {
			return Response{}, &TransientError{Attempts: attempt, Last: last}
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
			return Response{}, err
		}
	}
}

// maxBody bounds what is read of a response.
const maxBody = 64 << 10

func (s *Sender) post(ctx context.Context, body []byte) (Response, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL, bytes.NewReader(body))
	if err != nil {
		return Response{}, 0, &PermanentError{Body: err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "agent-shell")
	for k, v := range s.Headers {
		req.Header.Set(k, v)
	}
	resp, err := s.Client.Do(req)
	if err != nil {
		return Response{}, 0, err
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
		var r Response
		if json.Unmarshal(b, &ps) == nil {
			r.Rejected, _ = ps.PartialSuccess.RejectedLogRecords.Int64()
			r.Message = ps.PartialSuccess.ErrorMessage
		}
		return r, 0, nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return Response{}, retryAfter(resp.Header.Get("Retry-After"), time.Now()),
			fmt.Errorf("HTTP %d %s", resp.StatusCode, snippet(b))
	default:
		return Response{}, 0, &PermanentError{Status: resp.StatusCode, Body: snippet(b)}
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
