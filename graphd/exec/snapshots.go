package exec

import (
	"context"
	"strings"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/value"
)

// snapshot runs CREATE SNAPSHOT, which answers the new snapshot's name,
// and DROP SNAPSHOT (metad/snapshot.go; docs/backup.md).
func (r *runState) snapshot(ctx context.Context, s *ast.SnapshotStmt) (*table, error) {
	if s.Drop {
		if err := r.x.meta.DropSnapshot(ctx, s.Name, s.IfExists); err != nil {
			return nil, metaError(s.String(), err)
		}
		return nil, nil
	}
	d, err := r.x.meta.CreateSnapshot(ctx, nil)
	if err != nil {
		return nil, metaError(s.String(), err)
	}
	t := newTable("Name")
	t.add(value.Str(d.GetName()))
	return t, nil
}

// showSnapshots runs SHOW SNAPSHOTS in NebulaGraph's columns (Name,
// Status, Hosts), oldest first.
func (r *runState) showSnapshots(ctx context.Context) (*table, error) {
	ds, err := r.x.meta.ListSnapshots(ctx)
	if err != nil {
		return nil, metaError("SHOW SNAPSHOTS", err)
	}
	t := newTable("Name", "Status", "Hosts")
	for _, d := range ds {
		st := strings.TrimPrefix(d.GetStatus().String(), "STATUS_")
		if d.GetError() != "" {
			st += ": " + d.GetError()
		}
		t.add(value.Str(d.GetName()), value.Str(st), value.Str(strings.Join(d.GetHosts(), ",")))
	}
	return t, nil
}
