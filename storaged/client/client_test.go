package client

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/novagraph/novagraph/proto/storagepb"
)

// A write may be retried only when its request certainly never left: the
// connection could not be made. Everything else is an unknown outcome.
func TestNotSentClassification(t *testing.T) {
	// A real dial failure: a port nobody listens on.
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, dialErr := storagepb.NewStorageServiceClient(conn).AddVertices(ctx, &storagepb.AddVerticesReq{})
	if dialErr == nil {
		t.Fatal("call to a closed port succeeded")
	}
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"refused connection", dialErr, true},
		{"stream reset mid-call", status.Error(codes.Unavailable, "error reading from server: EOF"), false},
		{"deadline", status.Error(codes.DeadlineExceeded, "context deadline exceeded"), false},
		{"not a status", errors.New("boom"), false},
	}
	for _, c := range cases {
		if got := notSent(c.err); got != c.want {
			t.Fatalf("%s (%v): notSent = %v, want %v", c.name, c.err, got, c.want)
		}
	}
}

// A call the host rejects outright is not retried against other replicas:
// they would answer the same, and the caller would wait out the budget.
func TestPermanentErrorsAreNotRetried(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{status.Error(codes.Unimplemented, "unknown method"), true},
		{status.Error(codes.InvalidArgument, "bad"), true},
		{status.Error(codes.ResourceExhausted, "message larger than max"), true},
		{status.Error(codes.Unavailable, "connection refused"), false},
		{status.Error(codes.DeadlineExceeded, "deadline"), false},
		{errors.New("boom"), false},
	} {
		if got := permanent(c.err); got != c.want {
			t.Errorf("permanent(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
