package exec

import (
	"fmt"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/value"
)

// The properties of a GO row, resolved once per plan and read per row.
//
// A GO row's expressions read the edge, the vertex it leaves from ($^) and
// the vertex it reaches ($$). goRef is one such read with its names
// resolved against the plan (which stored property, which key field), and
// goRowContext.cell answers it for the current row in its raw form: a vid
// in key form, an int, a type name, or the stored value as storage sent
// it. The eval.Context methods (EdgeProp, SrcProp, DstProp) resolve and
// read through the same two functions, so the columnar projection
// (go_columns.go), which appends cells to typed columns without a
// value.Value, cannot read a property differently from Eval.

// goRefField is what a goRef reads.
type goRefField uint8

const (
	fieldStored     goRefField = iota // a fetched property, by index
	fieldStoredSrc                    // src(edge): the edge's stored source
	fieldStoredDst                    // dst(edge): the edge's stored destination
	fieldFrom                         // edge._src, id($^): the vertex the step leaves from
	fieldTo                           // edge._dst, id($$): the vertex the step reaches
	fieldRank                         // rank(edge), edge._rank
	fieldTypeName                     // type(edge): the type's name
	fieldTypeSigned                   // edge._type: the signed type, negative in reverse
)

// goRef is one property read of a GO row.
type goRef struct {
	scope eval.Scope
	name  string // the edge type or tag as written; AnyEdge/AnyTag for key fields
	prop  string
	field goRefField
	index int // fieldStored: position in the fetched properties, -1 if not fetched
}

// ref resolves a property read against the plan.
func (p *goPlan) ref(a eval.PropAccess) goRef {
	r := goRef{scope: a.Scope, name: a.Name, prop: a.Prop, index: -1}
	switch a.Scope {
	case eval.ScopeEdge:
		if a.Name == eval.AnyEdge {
			// src(edge), dst(edge), rank(edge), type(edge): the edge's own
			// stored endpoints (for an in-edge the vertex reached is its
			// source) and its type's name.
			switch a.Prop {
			case eval.PropSrc:
				r.field = fieldStoredSrc
				return r
			case eval.PropDst:
				r.field = fieldStoredDst
				return r
			case eval.PropRank:
				r.field = fieldRank
				return r
			case eval.PropType:
				r.field = fieldTypeName
				return r
			}
		}
		// edge._src, edge._dst and edge._type follow the traversal, as in
		// NebulaGraph: _src is the vertex the step leaves from, _dst the
		// vertex it reaches, _type the signed type (negative when followed
		// in reverse).
		switch a.Prop {
		case eval.PropSrc:
			r.field = fieldFrom
		case eval.PropDst:
			r.field = fieldTo
		case eval.PropRank:
			r.field = fieldRank
		case eval.PropType:
			r.field = fieldTypeSigned
		default:
			if i, ok := p.edgeIndex[a.Name+"."+a.Prop]; ok {
				r.index = i
			}
		}
	case eval.ScopeSrc:
		if a.Name == eval.AnyTag && a.Prop == eval.PropVID {
			r.field = fieldFrom
		} else if i, ok := p.srcIndex[a.Name+"."+a.Prop]; ok {
			r.index = i
		}
	case eval.ScopeDst:
		if a.Name == eval.AnyTag && a.Prop == eval.PropVID {
			r.field = fieldTo
		} else if i, ok := p.dstIndex[a.Name+"."+a.Prop]; ok {
			r.index = i
		}
	}
	return r
}

// goCellKind is the form of a goCell.
type goCellKind uint8

const (
	cellNull   goCellKind = iota
	cellVid               // vid: a vertex id in key form
	cellInt               // i
	cellName              // name: an edge type's name
	cellStored            // stored: a property as storage sent it
	cellFloat             // f: from a column (packed_edges)
	cellBool              // i != 0: from a column
	cellBytes             // vid: a string from a column
)

// goCell is one property of a GO row in its raw form.
type goCell struct {
	kind   goCellKind
	vid    []byte
	i      int64
	f      float64
	name   string
	stored *commonpb.Value
}

// cell reads r for the current row. A property of another edge type than
// the row's is NULL, and so is a $$ property of a destination without
// vertex data; a property that was not fetched is an error.
func (c *goRowContext) cell(r *goRef) (goCell, error) {
	row := c.row
	switch r.scope {
	case eval.ScopeEdge:
		abs := row.edgeType
		if abs < 0 {
			abs = -abs
		}
		name := c.p.edgeNames[abs]
		if r.name != eval.AnyEdge && r.name != name {
			return goCell{}, nil // a property of another edge type of OVER
		}
		switch r.field {
		case fieldStoredSrc, fieldStoredDst:
			src, dst := row.from, row.dst
			if row.edgeType < 0 {
				src, dst = row.dst, row.from
			}
			if r.field == fieldStoredSrc {
				return goCell{kind: cellVid, vid: src}, nil
			}
			return goCell{kind: cellVid, vid: dst}, nil
		case fieldTypeName:
			return goCell{kind: cellName, name: name}, nil
		case fieldTypeSigned:
			return goCell{kind: cellInt, i: int64(row.edgeType)}, nil
		}
	case eval.ScopeSrc:
		if r.field == fieldStored {
			if r.index < 0 || r.index >= len(row.fromProps) {
				return goCell{}, fmt.Errorf("$^.%s.%s was not fetched", r.name, r.prop)
			}
			return goCell{kind: cellStored, stored: row.fromProps[r.index]}, nil
		}
	case eval.ScopeDst:
		if r.field == fieldStored {
			if r.index < 0 {
				return goCell{}, fmt.Errorf("$$.%s.%s was not fetched", r.name, r.prop)
			}
			// NULL when the destination has no vertex data.
			return c.dst.cell(c, r.index), nil
		}
	}
	switch r.field {
	case fieldFrom:
		return goCell{kind: cellVid, vid: row.from}, nil
	case fieldTo:
		return goCell{kind: cellVid, vid: row.dst}, nil
	case fieldRank:
		return goCell{kind: cellInt, i: row.rank}, nil
	}
	// A stored edge property.
	if row.cols != nil {
		if r.index < 0 || r.index >= len(row.cols) {
			return goCell{}, fmt.Errorf("%s.%s was not fetched", r.name, r.prop)
		}
		return columnCell(row.cols[r.index], row.at), nil
	}
	if r.index < 0 || r.index >= len(row.props) {
		return goCell{}, fmt.Errorf("%s.%s was not fetched", r.name, r.prop)
	}
	return goCell{kind: cellStored, stored: row.props[r.index]}, nil
}

// columnCell is cell i of a column storage answered (packed_edges).
func columnCell(c *commonpb.Column, i int) goCell {
	if c.NullAt(i) {
		return goCell{}
	}
	switch c.GetKind() {
	case commonpb.ColumnKind_COL_INT:
		return goCell{kind: cellInt, i: c.Ints[i]}
	case commonpb.ColumnKind_COL_FLOAT:
		return goCell{kind: cellFloat, f: c.Floats[i]}
	case commonpb.ColumnKind_COL_STR:
		return goCell{kind: cellBytes, vid: c.Str(i)}
	case commonpb.ColumnKind_COL_BOOL:
		var b int64
		if c.Bools[i] != 0 {
			b = 1
		}
		return goCell{kind: cellBool, i: b}
	}
	return goCell{kind: cellStored, stored: c.Values[i]}
}

// value is the cell as expressions see it.
func (c goCell) value(vids vidCodec) value.Value {
	switch c.kind {
	case cellVid:
		return vids.decode(c.vid)
	case cellInt:
		return value.Int(c.i)
	case cellName:
		return value.Str(c.name)
	case cellStored:
		return value.FromProto(c.stored)
	case cellFloat:
		return value.Float(c.f)
	case cellBool:
		return value.Bool(c.i != 0)
	case cellBytes:
		return value.Str(string(c.vid))
	}
	return value.Null()
}

// appendTo adds the cell to a result column, as value(vids) would read;
// a string is copied, a stored Value that is not a scalar is kept.
func (c goCell) appendTo(b *commonpb.ColumnBuilder, vids vidCodec) {
	switch c.kind {
	case cellVid:
		if vids.isInt() {
			i, err := partition.DecodeInt64Vid(c.vid)
			if err != nil {
				b.AddNull() // as vidCodec.decode
				return
			}
			b.AddInt(i)
			return
		}
		end := len(c.vid) // partition.DecodeStringVid without the copy
		for end > 0 && c.vid[end-1] == 0 {
			end--
		}
		b.AddStr(c.vid[:end:end])
	case cellInt:
		b.AddInt(c.i)
	case cellName:
		b.AddStr([]byte(c.name))
	case cellStored:
		b.AddValue(c.stored)
	case cellFloat:
		b.AddFloat(c.f)
	case cellBool:
		b.AddBool(c.i != 0)
	case cellBytes:
		b.AddStr(c.vid)
	default:
		b.AddNull()
	}
}

// prop reads one property of the current row as a value (eval.Context).
func (c *goRowContext) prop(a eval.PropAccess) (value.Value, error) {
	r := c.p.ref(a)
	cell, err := c.cell(&r)
	if err != nil {
		return value.Null(), err
	}
	return cell.value(c.p.vids), nil
}
