package storaged

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/storaged/rowread"
)

// update runs UPDATE / UPSERT of one vertex tag or one edge inside the
// apply: read the row, evaluate the update on it (rowread.Update: WHEN,
// SET, then YIELD on the new row), write the row with its indexes (and,
// for an edge, the mirror intent). Every replica evaluates it against the
// same row with the command's clock. The result is an encoded
// storagepb.UpdateResp.
func (st *applyState) update(u *storagepb.UpdateReq) ([]byte, error) {
	var si *rowread.Schema
	var key []byte
	var err error
	if k := u.Edge; k != nil {
		if err := st.checkEdgeKey(k.Src, k.EdgeType, k.Dst); err != nil {
			return nil, err
		}
		if si, err = st.edge(k.EdgeType); err != nil {
			return nil, err
		}
		key = partition.EdgeKey(st.g.Space, st.g.Part, k.Src, k.EdgeType, k.Rank, k.Dst)
	} else {
		if err := st.checkOwn(u.Vid); err != nil {
			return nil, err
		}
		if si, err = st.tag(u.TagId); err != nil {
			return nil, err
		}
		key = partition.TagKey(st.g.Space, st.g.Part, u.Vid, u.TagId)
	}
	stored, err := st.b.Get(key)
	if err != nil {
		return nil, err
	}
	up := rowread.NewUpdate(st.space, si, u, st.now)
	old, row, err := up.Apply(stored)
	if err != nil {
		return nil, err
	}
	if row != nil {
		if u.Edge != nil {
			err = st.putOutEdge(si, u.Edge, old, row)
		} else {
			err = st.putTagRow(si, u.Vid, old, row)
		}
		if err != nil {
			return nil, err
		}
	}
	resp, err := up.Result(row != nil)
	if err != nil {
		return nil, err
	}
	b, err := proto.Marshal(resp)
	if err != nil {
		return nil, fmt.Errorf("encoding update result: %w", err)
	}
	return b, nil
}
