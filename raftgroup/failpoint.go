package raftgroup

import fp "github.com/novagraph/novagraph/internal/failpoint"

// Failpoints mark each disk and apply step of the engine, so crash tests
// can stop a store exactly between two of them. They exist only in builds
// with the `failpoints` tag (internal/failpoint, on go.etcd.io/gofail's
// runtime); in every other build failpoint is an empty function the
// compiler removes.
//
// Enable one from a test with enableFailpoint (tag builds only), or in a
// tagged binary with GOFAIL_FAILPOINTS='raftgroup/beforeApply=return("disk full")'.
// A failpoint that returns a value makes that step fail as a disk error
// would: the engine stops, and a restart must recover.
const (
	fpBeforeLogWrite       = "raftgroup/beforeLogWrite"       // writer: before the log batch is written
	fpAfterLogWrite        = "raftgroup/afterLogWrite"        // writer: log durable, responses not yet delivered
	fpBeforeApply          = "raftgroup/beforeApply"          // engine: before the apply batch is written
	fpAfterApply           = "raftgroup/afterApply"           // engine: applied, proposers not yet told
	fpBeforeSnapshotIngest = "raftgroup/beforeSnapshotIngest" // writer: snapshot state and marker durable, file not ingested
	fpAfterSnapshotIngest  = "raftgroup/afterSnapshotIngest"  // writer: file ingested, marker not yet cleared
)

var allFailpoints = []string{fpBeforeLogWrite, fpAfterLogWrite, fpBeforeApply, fpAfterApply, fpBeforeSnapshotIngest, fpAfterSnapshotIngest}

func init() {
	for _, name := range allFailpoints {
		fp.Register(name)
	}
}

// failpoint evaluates the named failpoint: nil when it is off or in a build
// without the tag, an error naming it when its term returns a value.
func failpoint(name string) error { return fp.Eval(name) }
