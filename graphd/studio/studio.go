// Package studio is the web page graphd serves beside its HTTP/JSON API
// (graphd --web-addr; docs/studio.md): sign in, run nGQL with parameters
// in the space of one's choice, and see the answer as a table, as JSON, or
// drawn as a graph with a force layout, a vertex expanded by a click.
//
// The page is static/: plain JavaScript, HTML and CSS embedded in the
// binary, no build step, no library and nothing fetched at run time. It
// talks to graphd only through the API (graphd/httpapi), so it can do
// nothing a script could not.
package studio

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed static
var static embed.FS

// Handler serves the page. Its headers keep the page to itself: scripts
// and styles only from graphd (no inline script, so an injected answer
// cannot run), no framing by another site, no MIME sniffing.
func Handler() http.Handler {
	files, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // static/ is embedded: it exists
	}
	fileServer := http.FileServerFS(files)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		fileServer.ServeHTTP(w, r)
	})
}
