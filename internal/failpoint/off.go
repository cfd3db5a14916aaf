//go:build !failpoints

package failpoint

// Enabled is true in builds with the failpoints tag.
const Enabled = false

// Register declares a failpoint; without the tag it does nothing.
func Register(string) {}

// Eval is always nil without the failpoints tag.
func Eval(string) error { return nil }
