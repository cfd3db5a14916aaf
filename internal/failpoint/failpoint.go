// Package failpoint marks steps where crash tests stop a daemon. Points
// exist only in builds with the `failpoints` tag (on go.etcd.io/gofail's
// runtime); in every other build Eval is an empty function the compiler
// removes, so production binaries carry none of it.
//
// Enable one from a test with Enable (tag builds only), or in a tagged
// binary with GOFAIL_FAILPOINTS='storaged/beforeMirror=return("x")'.
package failpoint
