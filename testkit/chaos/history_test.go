package chaos

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/novagraph/novagraph/testkit/chaos/register"
)

// checkLinearizable runs porcupine and, on failure, writes the
// visualisation and returns a description naming its path. Unless persist,
// the files go to the test's temporary directory (self-tests expect the
// failure and need not leave files behind).
func checkLinearizable(t *testing.T, history []porcupine.Operation, timeout time.Duration, persist bool) error {
	t.Helper()
	path := filepath.Join(t.TempDir(), "history.html")
	if persist {
		path = artifactPath(t, "history.html")
	}
	start := time.Now()
	res, err := register.Check(history, timeout, path)
	t.Logf("porcupine: %s for %d operations in %v", res, len(history), time.Since(start).Round(time.Millisecond))
	return err
}

// artifactPath names a file that outlives the test: under the -artifacts
// directory when go test was asked to keep artifacts, else in a fresh
// directory under os.TempDir() (t.ArtifactDir alone would be deleted).
func artifactPath(t *testing.T, name string) string {
	if f := flag.Lookup("test.artifacts"); f != nil && f.Value.String() == "true" {
		return filepath.Join(t.ArtifactDir(), name)
	}
	dir, err := os.MkdirTemp("", "novagraph-chaos-"+strings.NewReplacer("/", "_", "=", "").Replace(t.Name())+"-")
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, name)
}
