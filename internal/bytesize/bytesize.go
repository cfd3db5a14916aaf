// Package bytesize prints byte counts for people (log lines and error
// messages of graphd's memory limits and storaged's disk guard) and reads
// the sizes people write (daemon flags, SET QUERY_MEMORY_LIMIT).
package bytesize

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Format prints n in binary units: 512 B, 100 MiB, 1.5 GiB (negative
// counts keep their sign).
func Format(n int64) string {
	const unit = 1024
	if n < unit && n > -unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit || m <= -unit; m /= unit {
		div *= unit
		exp++
	}
	suffix := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}[exp]
	if n%div == 0 {
		return fmt.Sprintf("%d %s", n/div, suffix)
	}
	return fmt.Sprintf("%.1f %s", float64(n)/float64(div), suffix)
}

// sizeUnits are the units of a memory size, powers of 1024 whichever
// spelling (KB and KiB are both 1024 bytes, as memory limits are usually
// meant).
var sizeUnits = map[string]int64{
	"": 1, "B": 1,
	"K": 1 << 10, "KB": 1 << 10, "KIB": 1 << 10,
	"M": 1 << 20, "MB": 1 << 20, "MIB": 1 << 20,
	"G": 1 << 30, "GB": 1 << 30, "GIB": 1 << 30,
	"T": 1 << 40, "TB": 1 << 40, "TIB": 1 << 40,
}

// Parse reads a memory size: a non-negative number of bytes with an
// optional unit (B, KB, MB, GB, TB, or KiB, MiB, GiB, TiB; any case; all
// powers of 1024), as in 104857600, 100MB, "1.5 GiB". 0 means no limit.
func Parse(text string) (int64, error) {
	s := strings.TrimSpace(text)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	num, unit := s[:i], strings.ToUpper(strings.TrimSpace(s[i:]))
	mult, ok := sizeUnits[unit]
	if num == "" || !ok {
		return 0, fmt.Errorf("%q is not a size: write bytes with an optional unit B, KB, MB, GB or TB (powers of 1024), as in 100MB", text)
	}
	if !strings.Contains(num, ".") {
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || n > math.MaxInt64/mult {
			return 0, fmt.Errorf("%q is too large", text)
		}
		return n * mult, nil
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size", text)
	}
	if f*float64(mult) >= math.MaxInt64 {
		return 0, fmt.Errorf("%q is too large", text)
	}
	return int64(f * float64(mult)), nil
}
