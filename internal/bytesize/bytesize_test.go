package bytesize

import (
	"strings"
	"testing"
)

func TestFormat(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1 KiB", 1536: "1.5 KiB", 1258291: "1.2 MiB",
		64 << 20: "64 MiB", 3 << 30: "3 GiB", 1<<30 + 1<<29: "1.5 GiB", -2048: "-2 KiB"} {
		if got := Format(n); got != want {
			t.Errorf("Format(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		err  string
	}{
		{in: "104857600", want: 104857600},
		{in: "100MB", want: 100 << 20},
		{in: "1.5 GiB", want: 3 << 29},
		{in: "2k", want: 2048},
		{in: "0", want: 0},
		{in: "1TB", want: 1 << 40},
		{in: "", err: "is not a size"},
		{in: "10 XB", err: "is not a size"},
		{in: "-5MB", err: "is not a size"},
		{in: "99999999999TB", err: "too large"},
	} {
		got, err := Parse(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Parse(%q) = %d, %v; want an error with %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
}
