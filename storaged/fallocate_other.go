//go:build !linux

package storaged

import (
	"errors"
	"os"
)

// fallocate is Linux only; elsewhere the ballast is written with zeros.
func fallocate(*os.File, int64) error { return errors.ErrUnsupported }
