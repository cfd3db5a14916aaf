package bytesize

import "testing"

func TestFormat(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1 KiB", 1536: "1.5 KiB", 1258291: "1.2 MiB",
		64 << 20: "64 MiB", 3 << 30: "3 GiB", 1<<30 + 1<<29: "1.5 GiB", -2048: "-2 KiB"} {
		if got := Format(n); got != want {
			t.Errorf("Format(%d) = %q, want %q", n, got, want)
		}
	}
}
