package otlp

import (
	"fmt"
	"net/url"
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
