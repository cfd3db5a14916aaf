package ast

import (
	"strconv"
	"strings"
)

// Defaults of CREATE SPACE options, as in NebulaGraph.
const (
	DefaultPartitionNum  = 10
	DefaultReplicaFactor = 1
	DefaultVIDLen        = 8
)

// VIDKind is the type of a space's vertex ids.
type VIDKind uint8

// Vertex id types.
const (
	VIDInt64 VIDKind = iota + 1
	VIDFixedString
)

// VIDType is a space's vid_type: INT64 or FIXED_STRING(Len).
type VIDType struct {
	Kind VIDKind
	Len  int // FIXED_STRING only
}

func (t VIDType) String() string {
	if t.Kind == VIDInt64 {
		return "INT64"
	}
	return "FIXED_STRING(" + strconv.Itoa(t.Len) + ")"
}

// CreateSpaceStmt is
//
//	CREATE SPACE [IF NOT EXISTS] name
//	    [(partition_num = N, replica_factor = N, vid_type = INT64 | FIXED_STRING(N))]
//
// Options left out hold their defaults.
type CreateSpaceStmt struct {
	Pos
	IfNotExists   bool
	Name          string
	PartitionNum  int
	ReplicaFactor int
	VIDType       VIDType
}

// DropSpaceStmt is DROP SPACE [IF EXISTS] name.
type DropSpaceStmt struct {
	Pos
	IfExists bool
	Name     string
}

// ClearSpaceStmt is CLEAR SPACE [IF EXISTS] name: it deletes every
// vertex, edge and index entry of the space and keeps its schema.
type ClearSpaceStmt struct {
	Pos
	IfExists bool
	Name     string
}

// SnapshotStmt is CREATE SNAPSHOT (every space) or DROP SNAPSHOT
// [IF EXISTS] name (docs/backup.md).
type SnapshotStmt struct {
	Pos
	Drop     bool
	IfExists bool
	Name     string // DROP
}

// UseStmt is USE name: it sets the session's current space.
type UseStmt struct {
	Pos
	Space string
}

// ShowTarget is what a SHOW statement lists.
type ShowTarget uint8

// SHOW targets.
const (
	ShowSpaces ShowTarget = iota + 1
	ShowHosts
	ShowParts
	ShowTags
	ShowEdges
	ShowTagIndexes    // SHOW TAG INDEXES
	ShowEdgeIndexes   // SHOW EDGE INDEXES
	ShowQueries       // SHOW QUERIES: the queries running on every graphd
	ShowHostsMeta     // SHOW HOSTS META: the metad addresses graphd uses
	ShowSessions      // SHOW SESSIONS: the sessions of every graphd
	ShowStats         // SHOW STATS: what the space's last STATS job counted
	ShowLocalQueries  // SHOW LOCAL QUERIES: the queries running on this graphd
	ShowLocalSessions // SHOW LOCAL SESSIONS: the sessions of this graphd
	ShowSnapshots     // SHOW SNAPSHOTS: the snapshots metad records
)

func (t ShowTarget) String() string {
	switch t {
	case ShowSpaces:
		return "SPACES"
	case ShowHosts:
		return "HOSTS"
	case ShowParts:
		return "PARTS"
	case ShowTags:
		return "TAGS"
	case ShowEdges:
		return "EDGES"
	case ShowTagIndexes:
		return "TAG INDEXES"
	case ShowEdgeIndexes:
		return "EDGE INDEXES"
	case ShowQueries:
		return "QUERIES"
	case ShowSessions:
		return "SESSIONS"
	case ShowLocalQueries:
		return "LOCAL QUERIES"
	case ShowLocalSessions:
		return "LOCAL SESSIONS"
	case ShowSnapshots:
		return "SNAPSHOTS"
	case ShowStats:
		return "STATS"
	case ShowHostsMeta:
		return "HOSTS META"
	}
	return "?"
}

// ShowStmt is SHOW SPACES | HOSTS | PARTS | TAGS | EDGES | TAG INDEXES |
// EDGE INDEXES | [LOCAL] QUERIES | [LOCAL] SESSIONS | STATS | HOSTS META.
type ShowStmt struct {
	Pos
	Target ShowTarget
}

// SchemaKind tells tags from edge types where both share a statement form.
type SchemaKind uint8

// Schema kinds.
const (
	TagSchema SchemaKind = iota + 1
	EdgeSchema
)

func (k SchemaKind) String() string {
	if k == EdgeSchema {
		return "EDGE"
	}
	return "TAG"
}

// DescribeTarget is what a DESCRIBE statement describes.
type DescribeTarget uint8

// DESCRIBE targets.
const (
	DescribeSpace DescribeTarget = iota + 1
	DescribeTag
	DescribeEdge
	DescribeTagIndex  // DESCRIBE TAG INDEX idx
	DescribeEdgeIndex // DESCRIBE EDGE INDEX idx
)

func (t DescribeTarget) String() string {
	switch t {
	case DescribeSpace:
		return "SPACE"
	case DescribeTag:
		return "TAG"
	case DescribeEdge:
		return "EDGE"
	case DescribeTagIndex:
		return "TAG INDEX"
	case DescribeEdgeIndex:
		return "EDGE INDEX"
	}
	return "?"
}

// DescribeStmt is DESCRIBE | DESC  SPACE | TAG | EDGE | TAG INDEX | EDGE INDEX
// name; for the index targets Name is the index's name.
type DescribeStmt struct {
	Pos
	Target DescribeTarget
	Name   string
	// ShowCreate is SHOW CREATE SPACE | TAG | EDGE | TAG INDEX | EDGE
	// INDEX name: the statement that creates the object as it is now.
	ShowCreate bool
}

func (*CreateSpaceStmt) stmtNode() {}
func (*DropSpaceStmt) stmtNode()   {}
func (*ClearSpaceStmt) stmtNode()  {}
func (*SnapshotStmt) stmtNode()    {}
func (*UseStmt) stmtNode()         {}
func (*ShowStmt) stmtNode()        {}
func (*DescribeStmt) stmtNode()    {}

func (s *CreateSpaceStmt) String() string {
	var b strings.Builder
	b.WriteString("CREATE SPACE ")
	if s.IfNotExists {
		b.WriteString("IF NOT EXISTS ")
	}
	b.WriteString(QuoteName(s.Name))
	b.WriteString(" (partition_num = ")
	b.WriteString(strconv.Itoa(s.PartitionNum))
	b.WriteString(", replica_factor = ")
	b.WriteString(strconv.Itoa(s.ReplicaFactor))
	b.WriteString(", vid_type = ")
	b.WriteString(s.VIDType.String())
	b.WriteString(")")
	return b.String()
}

func (s *DropSpaceStmt) String() string {
	if s.IfExists {
		return "DROP SPACE IF EXISTS " + QuoteName(s.Name)
	}
	return "DROP SPACE " + QuoteName(s.Name)
}

func (s *SnapshotStmt) String() string {
	switch {
	case !s.Drop:
		return "CREATE SNAPSHOT"
	case s.IfExists:
		return "DROP SNAPSHOT IF EXISTS " + QuoteName(s.Name)
	}
	return "DROP SNAPSHOT " + QuoteName(s.Name)
}

func (s *ClearSpaceStmt) String() string {
	if s.IfExists {
		return "CLEAR SPACE IF EXISTS " + QuoteName(s.Name)
	}
	return "CLEAR SPACE " + QuoteName(s.Name)
}

func (s *UseStmt) String() string  { return "USE " + QuoteName(s.Space) }
func (s *ShowStmt) String() string { return "SHOW " + s.Target.String() }
func (s *DescribeStmt) String() string {
	if s.ShowCreate {
		return "SHOW CREATE " + s.Target.String() + " " + QuoteName(s.Name)
	}
	return "DESCRIBE " + s.Target.String() + " " + QuoteName(s.Name)
}
