package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHealthcheck(t *testing.T) {
	healthy := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if !healthy {
			http.Error(w, "raft engine halted", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ok\n"))
	}))
	defer srv.Close()
	var out, errOut bytes.Buffer
	if code := run([]string{srv.URL + "/healthz"}, &out, &errOut); code != 0 || strings.TrimSpace(out.String()) != "ok" {
		t.Fatalf("healthy: exit %d, out %q, err %q", code, out.String(), errOut.String())
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
