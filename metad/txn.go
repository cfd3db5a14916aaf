package metad

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/novagraph/novagraph/metad/ddlcheck"
	"github.com/novagraph/novagraph/proto/commonpb"
)

// statusError is a failure the caller caused or must handle (a name taken, a
// space missing); it travels in the response's Status rather than as a gRPC
// error. It is ddlcheck's Error, so that the refusals of the DDL checks
// travel the same way.
type statusError = ddlcheck.Error

func errorf(code commonpb.ErrorCode, format string, args ...any) error {
	return &statusError{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// txnReader reads etcd at one pinned revision and remembers what it read, so
// that the commit can assert that none of it changed. This is optimistic
// concurrency control in the style of etcd's STM, extended with prefix reads.
type txnReader struct {
	ctx  context.Context
	kv   clientv3.KV
	rev  int64 // revision every read is served at; 0 until the first read
	cmps []clientv3.Cmp
}

func (r *txnReader) read(key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	if r.rev > 0 {
		opts = append(opts, clientv3.WithRev(r.rev))
	}
	resp, err := r.kv.Get(r.ctx, key, opts...)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", key, err)
	}
	if r.rev == 0 {
		r.rev = resp.Header.Revision
	}
	return resp, nil
}

// get returns key's value, or nil if it does not exist. The commit requires
// the key to be unchanged (still absent if it was absent).
func (r *txnReader) get(key string) (*mvccpb.KeyValue, error) {
	resp, err := r.read(key)
	if err != nil {
		return nil, err
	}
	var kv *mvccpb.KeyValue
	var modRev int64
	if len(resp.Kvs) > 0 {
		kv = resp.Kvs[0]
		modRev = kv.ModRevision
	}
	r.cmps = append(r.cmps, clientv3.Compare(clientv3.ModRevision(key), "=", modRev))
	return kv, nil
}

// getAll reads several keys in one round trip to etcd (a read-only
// transaction, served at the pinned revision like every other read) and
// returns each key's value, nil where it is absent. A hot path such as a
// host's heartbeat uses it: every separate read is a linearizable read of
// its own, and on a loaded metad those queue behind each other.
func (r *txnReader) getAll(keys ...string) ([]*mvccpb.KeyValue, error) {
	gets := make([]clientv3.Op, len(keys))
	for i, key := range keys {
		if r.rev > 0 {
			gets[i] = clientv3.OpGet(key, clientv3.WithRev(r.rev))
		} else {
			gets[i] = clientv3.OpGet(key)
		}
	}
	resp, err := r.kv.Txn(r.ctx).Then(gets...).Commit()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", strings.Join(keys, ", "), err)
	}
	if r.rev == 0 {
		// Every get without a revision was served at the transaction's.
		r.rev = resp.Header.Revision
	}
	kvs := make([]*mvccpb.KeyValue, len(keys))
	for i, key := range keys {
		var modRev int64
		if rr := resp.Responses[i].GetResponseRange(); rr != nil && len(rr.Kvs) > 0 {
			kvs[i] = rr.Kvs[0]
			modRev = kvs[i].ModRevision
		}
		r.cmps = append(r.cmps, clientv3.Compare(clientv3.ModRevision(key), "=", modRev))
	}
	return kvs, nil
}

// list returns every key under prefix. The commit requires that no key under
// prefix was created or modified since. etcd cannot compare on a deleted key
// in a range, so a deletion goes unnoticed; callers that depend on a listed
// key staying put must also call assertUnchanged on it.
func (r *txnReader) list(prefix string) ([]*mvccpb.KeyValue, error) {
	resp, err := r.read(prefix, clientv3.WithPrefix())
	if err != nil {
		return nil, err
	}
	r.cmps = append(r.cmps, clientv3.Compare(clientv3.ModRevision(prefix).WithPrefix(), "<", r.rev+1))
	return resp.Kvs, nil
}

// assertUnchanged makes the commit require that kv still exists unmodified.
func (r *txnReader) assertUnchanged(kv *mvccpb.KeyValue) {
	r.cmps = append(r.cmps, clientv3.Compare(clientv3.ModRevision(string(kv.Key)), "=", kv.ModRevision))
}

// maxTxnAttempts bounds how often update re-runs after a conflicting write.
// Conflicts need concurrent catalog writes, which are rare; running out means
// something is writing in a loop.
const maxTxnAttempts = 8

var errTooManyConflicts = errors.New("catalog changed concurrently too many times")

// update runs fn on a consistent read of etcd and commits the writes it
// returns only if nothing fn read has changed; otherwise fn runs again on
// fresh data. fn returning no ops means there is nothing to write; update
// then returns revision 0. onConflict is told about every retry.
func update(ctx context.Context, kv clientv3.KV, onConflict func(), fn func(r *txnReader) ([]clientv3.Op, error)) (int64, error) {
	for attempt := range maxTxnAttempts {
		r := &txnReader{ctx: ctx, kv: kv}
		ops, err := fn(r)
		if err != nil {
			return 0, err
		}
		if len(ops) == 0 {
			return 0, nil
		}
		markCommitting(ctx)
		resp, err := kv.Txn(ctx).If(r.cmps...).Then(ops...).Commit()
		if err != nil {
			return 0, fmt.Errorf("committing catalog change: %w", err)
		}
		if resp.Succeeded {
			return resp.Header.Revision, nil
		}
		if onConflict != nil {
			onConflict()
		}
		// A short random pause lets racing writers (other metad processes)
		// finish instead of colliding again in lockstep.
		select {
		case <-time.After(time.Duration(1+rand.IntN(5<<attempt)) * time.Millisecond):
		case <-ctx.Done():
			return 0, fmt.Errorf("retrying a conflicting catalog change: %w", ctx.Err())
		}
	}
	return 0, errTooManyConflicts
}
