// Package bytesize prints byte counts for people: log lines and error
// messages of graphd's memory limits and storaged's disk guard.
package bytesize

import "fmt"

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
