// Package grpcserve holds the gRPC server options every novagraph daemon
// shares (graphd, storaged, metad). A panic in one handler becomes an
// Internal error for that call, logged with its stack, instead of killing
// the daemon and every other call with it: an input no test thought of
// must cost its caller an error, not the cluster a store. And a client
// connection may not open streams without bound.
package grpcserve

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/recovery"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Options returns the shared server options: panic recovery for unary and
// streaming calls, outermost, so that a panic in another interceptor is
// caught too, and at most maxStreams concurrent streams per connection (a
// client over it waits for a stream to end; it does not fail).
func Options(log *slog.Logger, maxStreams uint32) []grpc.ServerOption {
	handler := recovery.WithRecoveryHandlerContext(func(ctx context.Context, p any) error {
		method, _ := grpc.Method(ctx)
		// Called within the deferred recover: the stack is the panic's.
		log.Error("gRPC handler panicked", "method", method, "panic", p, "stack", string(debug.Stack()))
		return status.Error(codes.Internal, fmt.Sprintf("internal error in %s: %v", method, p))
	})
	return []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(recovery.UnaryServerInterceptor(handler)),
		grpc.ChainStreamInterceptor(recovery.StreamServerInterceptor(handler)),
		grpc.MaxConcurrentStreams(maxStreams),
	}
}
