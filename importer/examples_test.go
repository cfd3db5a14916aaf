package importer

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestExampleConfigs: every config under examples/ loads, and the
// basketballplayer example imports, online and in SST mode, into a cluster
// that then answers GO, LOOKUP and MATCH over it.
func TestExampleConfigs(t *testing.T) {
	paths, err := filepath.Glob("examples/*/*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example configs: %v", err)
	}
	configs := map[string]*Config{}
	for _, p := range paths {
		cfg, err := LoadConfig(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		configs[filepath.Base(p)] = cfg
	}
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 1})
	s := c.Session()
	defer s.Close()
	for _, name := range []string{"import.yaml", "import-sst.yaml"} {
		cfg := configs[name]
		if cfg == nil {
			t.Fatalf("examples/basketballplayer/%s is missing", name)
		}
		t.Run(name, func(t *testing.T) {
			cfg.Client.Address, cfg.Client.Password = c.Graph.Addr(), testcluster.Password
			cfg.Manager.FailedRowsDir, cfg.Manager.SSTDir = t.TempDir(), t.TempDir()
			sum := mustRun(t, cfg, Options{})
			if sum.Vertices != 12 || sum.Edges != 17 || sum.Failed != 0 {
				t.Fatalf("summary %+v, want 12 vertices, 17 edges, no failures", sum)
			}
			use := "USE " + cfg.Manager.SpaceName + "; "
			for stmt, want := range map[string][]string{
				`GO FROM "player101" OVER follow YIELD dst(edge), follow.degree`:                                             {"player100|95", "player102|90"},
				`LOOKUP ON player WHERE player.name == "Tim Duncan" YIELD id(vertex)`:                                        {"player100"},
				`MATCH (v:player{name: "Tim Duncan"})<-[:follow]-(w) RETURN w.player.name AS n ORDER BY n`:                   {"Kyle Anderson", "LaMarcus Aldridge", "Marco Belinelli", "Tony Parker"},
				`GO FROM "team204" OVER serve REVERSELY WHERE serve.start_year >= 2018 YIELD src(edge) AS p | ORDER BY $-.p`: {"player104", "player107"},
			} {
				rs := execOK(t, s, use+stmt)
				var got []string
				for i := range rs.Len() {
					row := ""
					for j := range rs.Row(i).Len() {
						if j > 0 {
							row += "|"
						}
						row += fmt.Sprint(rs.Row(i).Value(j))
					}
					got = append(got, row)
				}
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("%s: %q, want %q", stmt, got, want)
				}
			}
		})
	}
}
