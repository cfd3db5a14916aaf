package storaged

import (
	"os"

	"golang.org/x/sys/unix"
)

// fallocate allocates size bytes of blocks for f.
func fallocate(f *os.File, size int64) error {
	for {
		err := unix.Fallocate(int(f.Fd()), 0, 0, size)
		if err != unix.EINTR {
			return err
		}
	}
}
