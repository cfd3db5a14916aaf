// Package httpapi is graphd's HTTP/JSON API: sign in, run statements with
// parameters, cancel what a session runs, sign out. It is for scripts in
// languages without a gRPC client and for the web studio; docs/http-api.md
// is its reference.
//
// Every call goes through the same GraphService methods the gRPC clients
// reach (Backend, which graphd.Server implements), in process: sign-in
// checks, its rate limit and the per-user session cap, the statement size
// limit, query limits, roles and the redaction of passwords in the query
// list and the logs are those of gRPC by construction, not a copy of them.
//
// A session is named by a bearer token, the session id as a decimal string
// (`Authorization: Bearer <session>`); the API sets no cookies, so a page of
// another site cannot make a signed-in browser call it (no CSRF).
package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"

	"google.golang.org/grpc/peer"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/graphpb"
)

// Backend is what the API calls: graphd's GraphService, in process.
type Backend interface {
	Authenticate(ctx context.Context, req *graphpb.AuthReq) (*graphpb.AuthResp, error)
	Execute(ctx context.Context, req *graphpb.ExecuteReq) (*graphpb.ExecuteResp, error)
	Signout(ctx context.Context, req *graphpb.SignoutReq) (*graphpb.SignoutResp, error)
	// CancelSession stops every statement the session is running, as
	// KILL QUERY does; false if there is no such session.
	CancelSession(session int64) bool
	// SessionExists reports whether a session is signed in.
	SessionExists(session int64) bool
}

// MaxRequestBytes bounds a request body. graphd's statement limit
// (--max-statement-bytes, 4 MiB by default) applies to the statement
// inside; the rest is parameters, which decode to some ten times their
// size in memory before graphd checks them.
const MaxRequestBytes = 16 << 20

// maxSignInBytes bounds a sign-in, which anyone may send.
const maxSignInBytes = 64 << 10

// MaxAnswerBytes bounds an answer, as gRPC's message limit bounds graphd's
// (256 MiB); a larger one is refused with a hint to page it.
const MaxAnswerBytes = 256 << 20

// Handler serves the API under /api/v1/.
func Handler(b Backend, log *slog.Logger) http.Handler {
	a := &api{b: b, log: log}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v1/sessions", a.signIn)
	mux.HandleFunc("DELETE /api/v1/sessions", a.authed(a.signOut))
	mux.HandleFunc("POST /api/v1/execute", a.authed(a.execute))
	mux.HandleFunc("POST /api/v1/cancel", a.authed(a.cancel))
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "E_NOT_FOUND", fmt.Sprintf("%s %s: no such call; the API has POST /api/v1/sessions, DELETE /api/v1/sessions, POST /api/v1/execute and POST /api/v1/cancel", r.Method, r.URL.Path))
	})
	return mux
}

type api struct {
	b   Backend
	log *slog.Logger
}

// errorBody is every refusal's body: a code (graphd's error codes, and
// E_BAD_REQUEST, E_UNAUTHORIZED, E_NOT_FOUND of the API's own) and a
// message that says what was wrong.
type errorBody struct {
	Code  string `json:"code"`
	Error string `json:"error"`
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // statements hold < and >; the API is not HTML
	err := enc.Encode(body)
	if err == nil && buf.Len() > MaxAnswerBytes {
		err = fmt.Errorf("the answer is %d bytes, over the API's %d: page it with LIMIT and SKIP", buf.Len(), MaxAnswerBytes)
	}
	if err != nil {
		status, buf = http.StatusInternalServerError, bytes.Buffer{}
		fmt.Fprintf(&buf, `{"code":"E_INTERNAL","error":%q}`+"\n", "encoding the answer: "+err.Error())
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, errorBody{Code: code, Error: msg})
}

// decode reads a JSON request body into v, refusing unknown fields and
// trailing data so that a misspelt field is an error, not ignored.
//
// The body must say it is JSON. That is what keeps another site's page
// from posting to the API from a visitor's browser: a cross-site request
// with a JSON Content-Type needs a CORS preflight, which the API never
// grants, while one without a Content-Type or with a form's is sent
// unasked.
func decode(w http.ResponseWriter, r *http.Request, v any, limit int64) bool {
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "E_BAD_REQUEST", fmt.Sprintf("Content-Type %q: send the body as Content-Type: application/json", ct))
		return false
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	err := dec.Decode(v)
	if err == nil {
		if _, end := dec.Token(); end != io.EOF {
			err = errors.New("more after the JSON object")
		}
	}
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeError(w, http.StatusRequestEntityTooLarge, "E_BAD_REQUEST", fmt.Sprintf("the request body is over %d bytes", limit))
			return false
		}
		writeError(w, http.StatusBadRequest, "E_BAD_REQUEST", "the request body: "+err.Error())
		return false
	}
	return true
}

// withPeer gives the backend the client's address, as gRPC does: sign-in
// rate limits and session caps are per client host.
func withPeer(r *http.Request) context.Context {
	addr, err := net.ResolveTCPAddr("tcp", r.RemoteAddr)
	if err != nil {
		return r.Context()
	}
	return peer.NewContext(r.Context(), &peer.Peer{Addr: addr})
}

type signInRequest struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

type signInResponse struct {
	Session string `json:"session"` // a string: JavaScript's numbers cannot hold an int64
}

func (a *api) signIn(w http.ResponseWriter, r *http.Request) {
	var req signInRequest
	if !decode(w, r, &req, maxSignInBytes) {
		return
	}
	if req.Username == "" {
		writeError(w, http.StatusBadRequest, "E_BAD_REQUEST", `sign in with {"username": ..., "password": ...}`)
		return
	}
	resp, err := a.b.Authenticate(withPeer(r), &graphpb.AuthReq{Username: req.Username, Password: req.Password})
	if err != nil {
		writeError(w, http.StatusInternalServerError, "E_INTERNAL", err.Error())
		return
	}
	if resp.GetError() != "" {
		status := http.StatusUnauthorized
		if resp.GetCode() != commonpb.ErrorCode_E_INVALID_ARGUMENT {
			status = http.StatusServiceUnavailable // metad could not be asked
		}
		writeError(w, status, "E_UNAUTHORIZED", resp.GetError())
		return
	}
	writeJSON(w, http.StatusOK, signInResponse{Session: strconv.FormatInt(resp.GetSessionId(), 10)})
}

// authed passes the request's session to h, refusing a request without
// one or with one graphd does not have.
func (a *api) authed(h func(http.ResponseWriter, *http.Request, int64)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			w.Header().Set("WWW-Authenticate", `Bearer realm="novagraph"`)
			writeError(w, http.StatusUnauthorized, "E_UNAUTHORIZED", "no session: sign in with POST /api/v1/sessions and send its session as Authorization: Bearer <session>")
			return
		}
		id, err := strconv.ParseInt(strings.TrimSpace(token), 10, 64)
		if err != nil || id <= 0 || !a.b.SessionExists(id) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="novagraph", error="invalid_token"`)
			writeError(w, http.StatusUnauthorized, "E_UNAUTHORIZED", "the session is not signed in (expired, signed out, killed, or graphd restarted): sign in again")
			return
		}
		h(w, r, id)
	}
}

func (a *api) signOut(w http.ResponseWriter, r *http.Request, session int64) {
	if _, err := a.b.Signout(r.Context(), &graphpb.SignoutReq{SessionId: session}); err != nil {
		writeError(w, http.StatusInternalServerError, "E_INTERNAL", err.Error())
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (a *api) cancel(w http.ResponseWriter, _ *http.Request, session int64) {
	if !a.b.CancelSession(session) {
		writeError(w, http.StatusUnauthorized, "E_UNAUTHORIZED", "the session is not signed in: sign in again")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

type executeRequest struct {
	Stmt   string         `json:"stmt"`
	Params map[string]any `json:"params,omitempty"`
}

// executeResponse is a statement's answer. A statement that failed has
// its code and error and no columns; HTTP status 200 either way, since
// the call itself worked (as gRPC answers a failed statement).
type executeResponse struct {
	Code      string   `json:"code"`
	Error     string   `json:"error,omitempty"`
	Space     string   `json:"space,omitempty"`
	LatencyUS int64    `json:"latency_us"`
	Columns   []string `json:"columns,omitempty"`
	Rows      *[][]any `json:"rows,omitempty"` // [] for a result without rows
}

func (a *api) execute(w http.ResponseWriter, r *http.Request, session int64) {
	var req executeRequest
	if !decode(w, r, &req, MaxRequestBytes) {
		return
	}
	params := make(map[string]*commonpb.Value, len(req.Params))
	for name, v := range req.Params {
		gv, err := fromJSON(v)
		if err != nil {
			writeError(w, http.StatusBadRequest, "E_BAD_REQUEST", fmt.Sprintf("parameter %q: %v", name, err))
			return
		}
		pv, err := client.ParamValue(gv)
		if err != nil {
			writeError(w, http.StatusBadRequest, "E_BAD_REQUEST", fmt.Sprintf("parameter %q: %v", name, err))
			return
		}
		params[name] = pv
	}
	// The request's context ends when the client goes away: graphd then
	// stops the statement, as when a gRPC client cancels.
	resp, err := a.b.Execute(r.Context(), &graphpb.ExecuteReq{SessionId: session, Stmt: req.Stmt, Params: params})
	if err != nil {
		writeError(w, http.StatusInternalServerError, "E_INTERNAL", err.Error())
		return
	}
	out := executeResponse{Code: resp.GetCode().String(), Error: resp.GetError(), Space: resp.GetSpaceName(), LatencyUS: resp.GetLatencyUs()}
	if resp.GetCode() == graphpb.QueryErrorCode_E_SESSION {
		writeError(w, http.StatusUnauthorized, "E_UNAUTHORIZED", resp.GetError())
		return
	}
	if resp.GetCode() == graphpb.QueryErrorCode_OK {
		rs, err := client.NewResultSet(resp)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "E_INTERNAL", err.Error())
			return
		}
		if rs.HasData() {
			out.Columns = rs.Columns()
			rows := make([][]any, rs.Len())
			for i := range rows {
				row := rs.Row(i)
				cells := make([]any, row.Len())
				for j := range cells {
					cells[j] = client.JSONValue(row.Value(j))
				}
				rows[i] = cells
			}
			out.Rows = &rows
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// fromJSON turns a decoded JSON value into what client.ParamValue takes: a
// number without a fraction or exponent is an int64, any other a float64.
// An integer past int64 or a number past float64 is refused rather than
// rounded.
func fromJSON(v any) (any, error) {
	switch v := v.(type) {
	case json.Number:
		if !strings.ContainsAny(string(v), ".eE") {
			i, err := strconv.ParseInt(string(v), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s is past a 64-bit integer", v)
			}
			return i, nil
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return nil, fmt.Errorf("%s is past a 64-bit float", v)
		}
		return f, nil
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			var err error
			if out[i], err = fromJSON(item); err != nil {
				return nil, err
			}
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, item := range v {
			var err error
			if out[k], err = fromJSON(item); err != nil {
				return nil, fmt.Errorf("key %q: %w", k, err)
			}
		}
		return out, nil
	}
	return v, nil
}
