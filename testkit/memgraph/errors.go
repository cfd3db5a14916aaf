package memgraph

import (
	"errors"
	"fmt"

	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/metad/ddlcheck"
	"github.com/novagraph/novagraph/proto/commonpb"
	storageclient "github.com/novagraph/novagraph/storaged/client"
	"github.com/novagraph/novagraph/storaged/rowread"
)

// errorf is a DDL refusal, as metad's client returns it.
func errorf(code commonpb.ErrorCode, format string, args ...any) error {
	return &metaclient.Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// metaError is a refusal of metad's DDL checks (ddlcheck) as metad's
// client returns it.
func metaError(err error) error {
	var e *ddlcheck.Error
	if errors.As(err, &e) {
		return &metaclient.Error{Code: e.Code, Msg: e.Msg}
	}
	return err
}

// partitionError is a failure of one partition with a code, as storaged's
// (both are rowread's Error); partError turns it into the storaged/client
// PartError the executor gets from a cluster.
type partitionError = rowread.Error

// partError is err as the storage client reports a failed partition: a
// partitionError keeps its code, anything else is E_STORAGE (storaged's
// service.partError).
func partError(part int32, err error) error {
	pe := &storageclient.PartError{Part: part, Code: commonpb.ErrorCode_E_STORAGE, Msg: err.Error()}
	var e *partitionError
	if errors.As(err, &e) {
		pe.Code = e.Code
	}
	return pe
}

// Unsupported is what memgraph answers to what it does not model (users,
// roles, hosts, jobs): an error with a code, as the executor expects of
// its catalog, saying so.
type Unsupported struct{ What string }

func (e *Unsupported) Error() string {
	return "memgraph (testkit/memgraph, an in-memory graph for tests) does not model " + e.What
}

// ErrorCode is E_UNKNOWN: no code of the catalog's says "not modelled".
func (e *Unsupported) ErrorCode() commonpb.ErrorCode { return commonpb.ErrorCode_E_UNKNOWN }
