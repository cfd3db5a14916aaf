package importer

import (
	"strings"
	"testing"
)

// FuzzParseConfig parses arbitrary bytes as an importer config, as a user
// may hand it a damaged or hostile file: an error or a config, never a
// panic, and a config it accepts passes its own checks again (defaults
// applied once more change nothing that Validate refuses).
//
//	go test ./importer -run '^$' -fuzz FuzzParseConfig -fuzztime 60s
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(v4Config))
	f.Add([]byte(strings.ReplaceAll(v4Config, "v3", "v4")))
	f.Add([]byte("client: {address: [1, 2]}\n"))
	f.Add([]byte("a: &a [*a, *a]\nb: *a\n"))
	f.Add([]byte("sources:\n  - path: x.csv\n    tags: [{name: t, id: {index: -1}}]\n"))
	f.Add([]byte("manager: {batch: 99999999999999999999}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfig(data)
		if err != nil {
			if cfg != nil {
				t.Fatalf("an error (%v) and a config", err)
			}
			return
		}
		cfg.setDefaults()
		if err := cfg.Validate(); err != nil {
			t.Fatalf("an accepted config fails its checks after defaults again: %v", err)
		}
	})
}
