package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHealthcheck(t *testing.T) {
	metrics := strings.Repeat("novagraph_build_info{version=\"dev\"} 1\n", 1000) // past the first 4 KiB
	healthy := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !healthy {
			http.Error(w, "raft engine halted", http.StatusServiceUnavailable)
			return
		}
		if r.URL.Path == "/metrics" {
			w.Write([]byte(metrics))
			return
		}
		w.Write([]byte("ok\n"))
	}))
	defer srv.Close()
	var out, errOut bytes.Buffer
	if code := run([]string{srv.URL + "/healthz"}, &out, &errOut); code != 0 || strings.TrimSpace(out.String()) != "ok" {
		t.Fatalf("healthy: exit %d, out %q, err %q", code, out.String(), errOut.String())
	}
	out.Reset()
	if code := run([]string{"-body", srv.URL + "/metrics"}, &out, &errOut); code != 0 || out.String() != metrics {
		t.Fatalf("-body: exit %d, %d bytes of %d, err %q", code, out.Len(), len(metrics), errOut.String())
	}
	out.Reset()
	if code := run([]string{srv.URL + "/metrics"}, &out, &errOut); code != 0 || out.Len() > 4097 {
		t.Fatalf("without -body: exit %d, %d bytes", code, out.Len())
	}
	healthy = false
	errOut.Reset()
	if code := run([]string{srv.URL + "/healthz"}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "raft engine halted") {
		t.Fatalf("unhealthy: exit %d, err %q", code, errOut.String())
	}
	if code := run([]string{"-timeout", "200ms", "http://127.0.0.1:1/healthz"}, &out, &errOut); code != 1 {
		t.Fatalf("nothing listening: exit %d", code)
	}
	if code := run(nil, &out, &errOut); code != 2 {
		t.Fatalf("no URL: exit %d", code)
	}
}
