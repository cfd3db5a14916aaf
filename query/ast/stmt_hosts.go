package ast

import (
	"strconv"
	"strings"

	"github.com/novagraph/novagraph/query/value"
)

// HostAddr is a storage host in ADD HOSTS and DROP HOSTS: "host":port, the
// address its storaged listens on (--addr).
type HostAddr struct {
	Host string
	Port int
}

func (h HostAddr) String() string { return value.Str(h.Host).String() + ":" + strconv.Itoa(h.Port) }

// AddHostsStmt is ADD HOSTS "host":port [, "host":port ...], as in
// NebulaGraph 3.x: the hosts join the cluster, and new spaces and balance
// jobs place partitions on them.
type AddHostsStmt struct {
	Pos
	Hosts []HostAddr
}

// DropHostsStmt is DROP HOSTS "host":port [, "host":port ...]: the hosts
// leave the cluster. metad refuses a host that still holds a partition
// replica.
type DropHostsStmt struct {
	Pos
	Hosts []HostAddr
}

func (*AddHostsStmt) stmtNode()  {}
func (*DropHostsStmt) stmtNode() {}

func hostList(hosts []HostAddr) string {
	parts := make([]string, len(hosts))
	for i, h := range hosts {
		parts[i] = h.String()
	}
	return strings.Join(parts, ", ")
}

func (s *AddHostsStmt) String() string  { return "ADD HOSTS " + hostList(s.Hosts) }
func (s *DropHostsStmt) String() string { return "DROP HOSTS " + hostList(s.Hosts) }
