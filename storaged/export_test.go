package storaged

// Test helpers of package storaged that its external tests (package
// storaged_test) use too.
var WriteSSTFile = writeSSTFile
