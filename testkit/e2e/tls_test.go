package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	rpb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/internal/grpcdial"
	"github.com/novagraph/novagraph/internal/nodetls"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/raftmsgpb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestTLSClusterRefusesIntruders runs a cluster with mutual TLS between
// its daemons (replicated writes and reads prove raft, metad and graphd
// work over it) and plays the attacker at its internal ports (issue 24):
// a caller without a certificate, with one from another CA, with a valid
// certificate of a role the method is not open to, and a storaged's
// certificate speaking for a store it is not. Each is refused with an
// error that says why.
func TestTLSClusterRefusesIntruders(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 3, TLS: true})
	root := c.Session()
	defer root.Close()
	exec(t, root, `CREATE SPACE tls(partition_num=3, replica_factor=3, vid_type=FIXED_STRING(8))`)
	exec(t, root, `USE tls`)
	exec(t, root, `CREATE TAG person(name string)`)
	exec(t, root, `CREATE EDGE knows()`)
	exec(t, root, `INSERT VERTEX person(name) VALUES 'a':('Ann'), 'b':('Bob')`)
	exec(t, root, `INSERT EDGE knows() VALUES 'a'->'b':()`)
	const goBob = `GO FROM 'a' OVER knows YIELD $$.person.name AS n`
	expectSet(t, root, goBob, "Bob")

	store := c.Stores[0].Server
	storeAddr, metaAddr := store.Addr(), c.MetaAddr()
	load := func(role nodetls.Role) *nodetls.Config {
		cfg, err := c.TLS.Load(role)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	graphdCert, storagedCert := load(nodetls.RoleGraphd), load(nodetls.RoleStoraged)
	anonymous, err := nodetls.Load(nodetls.Files{CA: filepath.Join(c.TLS.Dir, "ca.crt")})
	if err != nil {
		t.Fatal(err)
	}
	foreign := otherCAStoraged(t, c.TLS.CA)
	// A storaged certificate the cluster's CA signed, for a host no store
	// of the cluster is on.
	elsewhere := issue(t, c.TLS.CA, "storaged-elsewhere", nodetls.RoleStoraged, "10.9.9.9")

	me := store.StoreID()
	var peer uint64 // another store of the cluster: a valid sender
	for _, s := range c.Stores[1:] {
		peer = s.Server.StoreID()
		break
	}
	heartbeat := func(from, to uint64) *raftmsgpb.MessageBatch {
		m, err := proto.Marshal(&rpb.Message{Type: rpb.MsgHeartbeat.Enum(), From: &from, To: &to, Term: proto.Uint64(1)})
		if err != nil {
			t.Fatal(err)
		}
		return &raftmsgpb.MessageBatch{FromStore: peer, ToStore: me, Messages: []*raftmsgpb.GroupMessage{{SpaceId: 9999, PartId: 1, Message: m}}}
	}

	transfer := func(transferee, to uint64) *raftmsgpb.MessageBatch {
		m, err := proto.Marshal(&rpb.Message{Type: rpb.MsgTransferLeader.Enum(), From: &transferee, To: &to, Term: proto.Uint64(1)})
		if err != nil {
			t.Fatal(err)
		}
		return &raftmsgpb.MessageBatch{FromStore: peer, ToStore: me, Messages: []*raftmsgpb.GroupMessage{{SpaceId: 9999, PartId: 1, Message: m}}}
	}

	tests := []struct {
		name   string
		caller *nodetls.Config
		call   func(ctx context.Context, conn *grpc.ClientConn) error
		addr   string
		code   codes.Code
		says   string
	}{
		{"no certificate at storaged", anonymous, getNeighbors, storeAddr, codes.Unavailable, ""},
		{"no certificate at metad", anonymous, alterRoot, metaAddr, codes.Unavailable, ""},
		{"plaintext at storaged", nil, getNeighbors, storeAddr, codes.Unavailable, ""},
		{"another CA's certificate at storaged", foreign, getNeighbors, storeAddr, codes.Unavailable, ""},
		{"another CA's certificate at metad", foreign, alterRoot, metaAddr, codes.Unavailable, ""},
		{"graphd's certificate sending raft messages", graphdCert, sendRaft(heartbeat(peer, me)), storeAddr, codes.PermissionDenied,
			`graphd "graphd" may not call /novagraph.raft.RaftService/Send (open to storaged)`},
		{"graphd's certificate streaming a snapshot", graphdCert, sendSnapshot(peer, me), storeAddr, codes.PermissionDenied,
			`may not call /novagraph.raft.RaftSnapshotService/Snapshot`},
		{"storaged's certificate resetting root's password", storagedCert, alterRoot, metaAddr, codes.PermissionDenied,
			`storaged "storaged" may not call /novagraph.meta.MetaService/AlterUser (open to metad or graphd)`},
		{"graphd's certificate resetting root's password without a session", graphdCert, alterRoot, metaAddr, codes.Unauthenticated,
			"carries no credential"},
		{"graphd's certificate ingesting SST files", graphdCert, ingest, storeAddr, codes.PermissionDenied,
			`may not call /novagraph.storage.StorageService/IngestSST (open to importer)`},
		{"a forged raft message (From is not the sending store)", storagedCert, sendRaft(heartbeat(424242, me)), storeAddr, codes.PermissionDenied,
			"carries a message from replica 424242"},
		{"a storaged certificate for another host", elsewhere, sendRaft(heartbeat(peer, me)), storeAddr, codes.PermissionDenied,
			"does not name host 127.0.0.1"},
		{"a storaged certificate for another host streaming a snapshot", elsewhere, sendSnapshot(peer, me), storeAddr, codes.PermissionDenied,
			"does not name host 127.0.0.1"},
		{"a storaged certificate for another host registering as 127.0.0.1", elsewhere, registerHost("127.0.0.1"), metaAddr, codes.PermissionDenied,
			"does not name host 127.0.0.1 it registers for"},
		{"graphd's certificate registering a storage host", graphdCert, registerHost("127.0.0.1"), metaAddr, codes.PermissionDenied,
			"may not call /novagraph.meta.MetaService/RegisterHost"},
		// What a storaged may do: its raft messages go through (the group
		// does not exist here, so the engine drops them), and so does a
		// leader transfer a follower forwards, which names the transferee
		// as From.
		{"a storaged sending its own raft messages", storagedCert, sendRaft(heartbeat(peer, me)), storeAddr, codes.OK, ""},
		{"a storaged forwarding a leader transfer", storagedCert, sendRaft(transfer(peer, me)), storeAddr, codes.OK, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := grpcdial.NewClient(tc.addr, tc.caller, time.Second, backoff.DefaultConfig)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err = tc.call(ctx, conn)
			if got := status.Code(err); got != tc.code {
				t.Fatalf("code %v (%v), want %v", got, err, tc.code)
			}
			if tc.says != "" && !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("error %q does not say %q", err, tc.says)
			}
		})
	}
	// Nothing the intruders sent changed the data or the root password.
	expectSet(t, root, goBob, "Bob")
	if _, err := c.SessionAs("root", testcluster.Password); err != nil {
		t.Fatalf("root's password changed: %v", err)
	}
}

func getNeighbors(ctx context.Context, conn *grpc.ClientConn) error {
	_, err := storagepb.NewStorageServiceClient(conn).GetProps(ctx, &storagepb.GetPropsReq{SpaceId: 1})
	return err
}

func alterRoot(ctx context.Context, conn *grpc.ClientConn) error {
	_, err := metapb.NewMetaServiceClient(conn).AlterUser(ctx, &metapb.AlterUserReq{Name: "root", Password: "owned"})
	return err
}

func registerHost(host string) func(ctx context.Context, conn *grpc.ClientConn) error {
	return func(ctx context.Context, conn *grpc.ClientConn) error {
		_, err := metapb.NewMetaServiceClient(conn).RegisterHost(ctx, &metapb.RegisterHostReq{Addr: &commonpb.HostAddr{Host: host, Port: 9779}})
		return err
	}
}

func ingest(ctx context.Context, conn *grpc.ClientConn) error {
	_, err := storagepb.NewStorageServiceClient(conn).IngestSST(ctx, &storagepb.IngestSSTReq{SpaceId: 1})
	return err
}

func sendRaft(batch *raftmsgpb.MessageBatch) func(ctx context.Context, conn *grpc.ClientConn) error {
	return func(ctx context.Context, conn *grpc.ClientConn) error {
		stream, err := raftmsgpb.NewRaftServiceClient(conn).Send(ctx)
		if err != nil {
			return err
		}
		if err := stream.Send(batch); err != nil {
			_, err = stream.CloseAndRecv() // the server's reason
			return err
		}
		_, err = stream.CloseAndRecv()
		return err
	}
}

func sendSnapshot(from, to uint64) func(ctx context.Context, conn *grpc.ClientConn) error {
	return func(ctx context.Context, conn *grpc.ClientConn) error {
		msg, err := proto.Marshal(&rpb.Message{Type: rpb.MsgSnap.Enum(), From: &from, To: &to, Term: proto.Uint64(1)})
		if err != nil {
			return err
		}
		stream, err := raftmsgpb.NewRaftSnapshotServiceClient(conn).Snapshot(ctx)
		if err != nil {
			return err
		}
		header := &raftmsgpb.SnapshotChunk{Header: &raftmsgpb.SnapshotHeader{FromStore: from, ToStore: to, SpaceId: 9999, PartId: 1, Message: msg}}
		if err := stream.Send(header); err != nil {
			_, err = stream.CloseAndRecv()
			return err
		}
		_, err = stream.CloseAndRecv()
		return err
	}
}

// otherCAStoraged is a storaged certificate from a CA the cluster does not
// trust. It trusts the cluster's CA too, so that the client accepts the
// server and the refusal is the server's.
func otherCAStoraged(t *testing.T, cluster *nodetls.CA) *nodetls.Config {
	t.Helper()
	ca, err := nodetls.NewCA("intruder CA", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return issue(t, ca, "storaged", nodetls.RoleStoraged, "127.0.0.1", cluster)
}

// issue writes a certificate of ca for name and role into a new folder and
// loads it, trusting ca and the CAs of trust.
func issue(t *testing.T, ca *nodetls.CA, name string, role nodetls.Role, host string, trust ...*nodetls.CA) *nodetls.Config {
	t.Helper()
	dir := t.TempDir()
	if err := ca.WriteCA(dir); err != nil {
		t.Fatal(err)
	}
	bundle := slices.Clone(ca.CertPEM)
	for _, other := range trust {
		bundle = append(bundle, other.CertPEM...)
	}
	if err := os.WriteFile(filepath.Join(dir, "ca.crt"), bundle, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ca.WriteIssued(dir, name, name, role, []string{host}, time.Hour); err != nil {
		t.Fatal(err)
	}
	cfg, err := nodetls.Load(nodetls.Files{Cert: filepath.Join(dir, name+".crt"), Key: filepath.Join(dir, name+".key"), CA: filepath.Join(dir, "ca.crt")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, name+".key")); err != nil {
		t.Fatal(err)
	}
	return cfg
}
