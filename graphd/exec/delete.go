package exec

import (
	"context"
	"fmt"

	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/value"
)

// vidsByPart groups encoded vids by partition.
func vidsByPart(vids vidCodec, list [][]byte) map[int32]*storagepb.VidList {
	parts := map[int32]*storagepb.VidList{}
	for _, v := range list {
		p := vids.part(v)
		if parts[p] == nil {
			parts[p] = &storagepb.VidList{}
		}
		parts[p].Vids = append(parts[p].Vids, v)
	}
	return parts
}

// deleteVertices runs DELETE VERTEX vids [WITH EDGE]. Storaged deletes the
// vertex's tags and its edges in both directions, wherever their other
// halves live, with or without WITH EDGE: a vertex id never keeps dangling
// edges (NebulaGraph 3.x leaves them without WITH EDGE; here the edges would
// reach a vertex that no longer exists, so they go too).
func (r *runState) deleteVertices(ctx context.Context, s *ast.DeleteVertexStmt, input *table) error {
	snap := r.x.meta.Catalog()
	space, err := r.currentSpace(snap, s)
	if err != nil {
		return err
	}
	vids := vidCodec{space}
	set, err := r.startVids(vids, s.Vertices, input)
	if err != nil {
		return err
	}
	if len(set.vids) == 0 {
		return nil
	}
	req := &storagepb.DeleteVerticesReq{SpaceId: space.GetSpaceId(), CatalogVersion: snap.Version(), Parts: vidsByPart(vids, set.vids)}
	if err := r.x.storage.DeleteVertices(ctx, req); err != nil {
		return storageError("DELETE VERTEX", err)
	}
	return nil
}

// deleteTags runs DELETE TAG t, ... | * FROM vids.
func (r *runState) deleteTags(ctx context.Context, s *ast.DeleteTagStmt, input *table) error {
	snap := r.x.meta.Catalog()
	space, err := r.currentSpace(snap, s)
	if err != nil {
		return err
	}
	req := &storagepb.DeleteTagsReq{SpaceId: space.GetSpaceId(), CatalogVersion: snap.Version()}
	if !s.All {
		seen := map[int32]bool{}
		for _, name := range s.Tags {
			tag, ok := snap.TagByName(space.GetSpaceId(), name)
			if !ok {
				return at(s, "tag %q not found in space %q", name, space.GetName())
			}
			if !seen[tag.GetTagId()] {
				seen[tag.GetTagId()] = true
				req.TagIds = append(req.TagIds, tag.GetTagId())
			}
		}
	}
	vids := vidCodec{space}
	set, err := r.startVids(vids, s.From, input)
	if err != nil {
		return err
	}
	if len(set.vids) == 0 {
		return nil
	}
	req.Parts = vidsByPart(vids, set.vids)
	if err := r.x.storage.DeleteTags(ctx, req); err != nil {
		return storageError("DELETE TAG", err)
	}
	return nil
}

// deleteEdges runs DELETE EDGE e src->dst[@rank], ... and its piped form
// DELETE EDGE e $-.src->$-.dst[@$-.rank]. Each edge is addressed by its
// out-edge key at its source's partition; storaged removes the in-edge.
func (r *runState) deleteEdges(ctx context.Context, s *ast.DeleteEdgeStmt, input *table) error {
	snap := r.x.meta.Catalog()
	space, err := r.currentSpace(snap, s)
	if err != nil {
		return err
	}
	edge, ok := snap.EdgeByName(space.GetSpaceId(), s.Edge)
	if !ok {
		return at(s, "edge %q not found in space %q", s.Edge, space.GetName())
	}
	vids := vidCodec{space}
	parts := map[int32]*storagepb.EdgeKeyList{}
	seen := map[string]bool{}
	add := func(src, dst []byte, rank int64) {
		k := fmt.Sprintf("%x|%x|%d", src, dst, rank)
		if seen[k] {
			return
		}
		seen[k] = true
		p := vids.part(src)
		if parts[p] == nil {
			parts[p] = &storagepb.EdgeKeyList{}
		}
		parts[p].Keys = append(parts[p].Keys, &storagepb.EdgeKey{Src: src, EdgeType: edge.GetEdgeType(), Rank: rank, Dst: dst})
	}
	for _, k := range s.Keys {
		if isRef(k.Src) {
			if err := r.refEdgeKeys(vids, k, input, add); err != nil {
				return err
			}
			continue
		}
		src, dst, rank, err := r.edgeKey(vids, k)
		if err != nil {
			return err
		}
		add(src, dst, rank)
	}
	if len(parts) == 0 {
		return nil
	}
	req := &storagepb.DeleteEdgesReq{SpaceId: space.GetSpaceId(), CatalogVersion: snap.Version(), Parts: parts}
	if err := r.x.storage.DeleteEdges(ctx, req); err != nil {
		return storageError("DELETE EDGE", err)
	}
	return nil
}

func isRef(e ast.Expr) bool {
	switch e.(type) {
	case *ast.InputPropExpr, *ast.VarPropExpr:
		return true
	}
	return false
}

// refEdgeKeys evaluates a key of $-.col or $var.col references once per
// row of its input; rows whose src or dst is NULL are skipped.
func (r *runState) refEdgeKeys(vids vidCodec, k *ast.EdgeKey, input *table, add func(src, dst []byte, rank int64)) error {
	props := eval.CollectProps(k.Src, k.Dst, k.Rank)
	if err := r.checkRefs(k, props, input); err != nil {
		return err
	}
	var src *table
	varName := ""
	switch ref := k.Src.(type) {
	case *ast.InputPropExpr:
		src = input
	case *ast.VarPropExpr:
		src, varName = r.vars[ref.Var], ref.Var
	}
	if src == nil {
		return at(k, "%s: no input is piped into this statement", k.Src)
	}
	rc := &rowContext{Context: constContext{}, input: input, vars: r.vars, params: r.params}
	for i, row := range src.rows {
		if varName != "" {
			rc.varName, rc.varRow = varName, row
		} else {
			rc.inputRow = row
		}
		sv, err := eval.Eval(rc, k.Src)
		if err != nil {
			return execErrorf("row %d: %v", i+1, err)
		}
		dv, err := eval.Eval(rc, k.Dst)
		if err != nil {
			return execErrorf("row %d: %v", i+1, err)
		}
		if sv.IsNull() || dv.IsNull() {
			continue
		}
		var rank int64
		if k.Rank != nil {
			rv, err := eval.Eval(rc, k.Rank)
			if err != nil {
				return execErrorf("row %d: %v", i+1, err)
			}
			if !rv.IsNull() {
				n, ok := rv.IntVal()
				if !ok || rv.Kind() != value.KindInt {
					return at(k.Rank, "row %d: rank must be an int, got %s", i+1, rv)
				}
				rank = n
			}
		}
		sb, err := vids.encode(sv)
		if err != nil {
			return at(k.Src, "row %d: %v", i+1, err)
		}
		db, err := vids.encode(dv)
		if err != nil {
			return at(k.Dst, "row %d: %v", i+1, err)
		}
		add(sb, db, rank)
	}
	return nil
}
