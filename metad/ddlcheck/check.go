// Package ddlcheck is the I/O-free half of metad's DDL: the checks of
// CREATE and ALTER requests, with the codes and messages metad answers
// them with, and what those requests store once checked (normalized
// columns and index fields, the next schema version, the placement of a
// new space's partitions). metad runs them inside its etcd transactions;
// testkit/memgraph runs them on its in-memory catalog, so that both refuse
// the same statements the same way. It imports no etcd or server code.
package ddlcheck

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/temporal"
)

const (
	// maxNameLen bounds space, tag, edge and column names (bytes).
	maxNameLen = 255
	// maxPartitionNum keeps one space's SpaceParts value, and so one etcd
	// request, well under etcd's default 1.5 MiB request limit.
	maxPartitionNum = 1 << 14
	// maxFixedLen bounds FIXED_STRING columns; rows this wide are a mistake.
	maxFixedLen = 1 << 16
	// maxFixedVidLen bounds FIXED_STRING vids, as in NebulaGraph.
	maxFixedVidLen = 256
	// maxIndexPrefixLen bounds the indexed prefix of a STRING or
	// FIXED_STRING index field (bytes), as NebulaGraph bounds index string
	// lengths.
	maxIndexPrefixLen = 256
)

// Error is a refusal: the request is wrong, and Code says how. metad
// answers it in the response's Status (its statusError is this type).
type Error struct {
	Code commonpb.ErrorCode
	Msg  string
}

func (e *Error) Error() string { return e.Code.String() + ": " + e.Msg }

func errorf(code commonpb.ErrorCode, format string, args ...any) error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// Name checks the name of a space, tag, edge type, index or user; what
// says which, for the message.
func Name(what, name string) error {
	if name == "" {
		return errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s name is empty", what)
	}
	if len(name) > maxNameLen {
		return errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s name %.20q... is %d bytes, longer than %d", what, name, len(name), maxNameLen)
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s name %q contains a control character", what, name)
		}
	}
	return nil
}

// Space checks a CreateSpace request and returns the description to
// store (vid_len filled in for INT64; space_id left for the caller).
func Space(d *metapb.SpaceDesc) (*metapb.SpaceDesc, error) {
	if d == nil {
		return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "space description is missing")
	}
	if err := Name("space", d.Name); err != nil {
		return nil, err
	}
	if d.PartitionNum < 1 || d.PartitionNum > maxPartitionNum {
		return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "space %q: partition_num %d is not in [1, %d]", d.Name, d.PartitionNum, maxPartitionNum)
	}
	if d.ReplicaFactor < 1 {
		return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "space %q: replica_factor %d is less than 1", d.Name, d.ReplicaFactor)
	}
	out := &metapb.SpaceDesc{
		Name:          d.Name,
		PartitionNum:  d.PartitionNum,
		ReplicaFactor: d.ReplicaFactor,
		VidType:       d.VidType,
		VidLen:        d.VidLen,
	}
	switch d.VidType {
	case metapb.VidType_VID_INT64:
		if d.VidLen != 0 && d.VidLen != 8 {
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "space %q: INT64 vids are 8 bytes, vid_len %d given", d.Name, d.VidLen)
		}
		out.VidLen = 8
	case metapb.VidType_VID_FIXED_STRING:
		if d.VidLen < 1 || d.VidLen > maxFixedVidLen {
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "space %q: FIXED_STRING vid_len %d is not in [1, %d]", d.Name, d.VidLen, maxFixedVidLen)
		}
	case metapb.VidType_VID_TYPE_UNSPECIFIED:
		return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "space %q: vid_type is not set", d.Name)
	default:
		return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "space %q: unknown vid_type %d", d.Name, d.VidType)
	}
	return out, nil
}

// Columns checks a schema's columns and returns them normalized: a
// NULL default is always an explicit Value_Null, and integer defaults of
// DOUBLE and TIMESTAMP columns are converted, so that readers of the catalog
// never coerce defaults themselves.
func Columns(schema string, cols []*metapb.ColumnDef) ([]*metapb.ColumnDef, error) {
	seen := make(map[string]bool, len(cols))
	out := make([]*metapb.ColumnDef, 0, len(cols))
	for i, c := range cols {
		if c == nil {
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: column %d is missing", schema, i)
		}
		if err := Name(fmt.Sprintf("%s: column %d", schema, i), c.Name); err != nil {
			return nil, err
		}
		if seen[c.Name] {
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: column %q is defined twice", schema, c.Name)
		}
		seen[c.Name] = true
		where := fmt.Sprintf("%s: column %q", schema, c.Name)
		switch c.Type {
		case metapb.PropType_INT64, metapb.PropType_DOUBLE, metapb.PropType_BOOL,
			metapb.PropType_STRING, metapb.PropType_TIMESTAMP,
			metapb.PropType_DATE, metapb.PropType_TIME, metapb.PropType_DATETIME, metapb.PropType_DURATION:
			if c.FixedLen != 0 {
				return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: fixed_len %d is only for FIXED_STRING, not %s", where, c.FixedLen, c.Type)
			}
		case metapb.PropType_FIXED_STRING:
			if c.FixedLen < 1 || c.FixedLen > maxFixedLen {
				return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: FIXED_STRING fixed_len %d is not in [1, %d]", where, c.FixedLen, maxFixedLen)
			}
		case metapb.PropType_PROP_TYPE_UNSPECIFIED:
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: type is not set", where)
		default:
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: unknown type %d", where, c.Type)
		}
		switch {
		case c.IntBits != 0 && (c.Type != metapb.PropType_INT64 || (c.IntBits != 8 && c.IntBits != 16 && c.IntBits != 32)):
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: int_bits %d: want 8, 16 or 32 on an INT64 column", where, c.IntBits)
		case c.Float32 && c.Type != metapb.PropType_DOUBLE:
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: float32 is only for DOUBLE, not %s", where, c.Type)
		case c.DefaultExpr != "" && c.DefaultValue == nil:
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: default_expr without default_value", where)
		}
		nc := proto.Clone(c).(*metapb.ColumnDef)
		if c.DefaultValue != nil {
			def, err := normalizeDefault(where, nc)
			if err != nil {
				return nil, err
			}
			nc.DefaultValue = def
			if err := checkDefaultWidth(where, nc); err != nil {
				return nil, err
			}
		}
		out = append(out, nc)
	}
	return out, nil
}

// checkDefaultWidth refuses a default outside an int8/int16/int32 or float
// column's range (every write leaving the column out would fail on it, and
// rows written before an ALTER ADD would read it), and a NaN or infinite
// one.
func checkDefaultWidth(where string, c *metapb.ColumnDef) error {
	switch v := c.DefaultValue.GetV().(type) {
	case *commonpb.Value_IntVal:
		if b := c.IntBits; b > 0 && (v.IntVal < -1<<(b-1) || v.IntVal > 1<<(b-1)-1) {
			return errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: default %d is out of int%d's range [%d, %d]", where, v.IntVal, b, int64(-1)<<(b-1), int64(1)<<(b-1)-1)
		}
	case *commonpb.Value_FloatVal:
		// nGQL has no literal for NaN or an infinity: such a default could
		// not be written back (SHOW CREATE) and is surely a mistake.
		if math.IsNaN(v.FloatVal) || math.IsInf(v.FloatVal, 0) {
			return errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: default %g is not a finite number", where, v.FloatVal)
		}
		if c.Float32 && math.Abs(v.FloatVal) > math.MaxFloat32 {
			return errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: default %g is beyond float's range", where, v.FloatVal)
		}
	}
	return nil
}

// TTL checks a schema's TTL against its columns: ttl_col, if set,
// must name an INT64 or TIMESTAMP column, and ttl_duration must not be
// negative. As in NebulaGraph, a duration without a column is allowed and
// means nothing, and a column with duration 0 means no expiry.
func TTL(schema string, cols []*metapb.ColumnDef, ttlCol string, ttlDuration int64) error {
	if ttlDuration < 0 {
		return errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: ttl_duration %d is negative", schema, ttlDuration)
	}
	if ttlCol == "" {
		return nil
	}
	i := slices.IndexFunc(cols, func(c *metapb.ColumnDef) bool { return c.Name == ttlCol })
	if i < 0 {
		return errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: ttl_col %q is not a column", schema, ttlCol)
	}
	if t := cols[i].Type; t != metapb.PropType_INT64 && t != metapb.PropType_TIMESTAMP {
		return errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: ttl_col %q is %s, not INT64 or TIMESTAMP", schema, ttlCol, t)
	}
	return nil
}

// IndexFields checks an index's fields against the columns of the
// schema it indexes and returns them normalized: a FIXED_STRING field's
// prefix_len 0 (the whole value) becomes the column's fixed_len, so every
// string field states the bytes it indexes.
func IndexFields(index string, schema string, cols []*metapb.ColumnDef, fields []*metapb.IndexField) ([]*metapb.IndexField, error) {
	byName := make(map[string]*metapb.ColumnDef, len(cols))
	for _, c := range cols {
		byName[c.Name] = c
	}
	seen := make(map[string]bool, len(fields))
	out := make([]*metapb.IndexField, 0, len(fields))
	for i, f := range fields {
		if f == nil {
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "index %q: field %d is missing", index, i)
		}
		if f.Name == "" {
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "index %q: field %d has no name", index, i)
		}
		c, ok := byName[f.Name]
		if !ok {
			return nil, errorf(commonpb.ErrorCode_E_PROP_NOT_FOUND, "index %q: %s has no column %q", index, schema, f.Name)
		}
		if seen[f.Name] {
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "index %q: field %q is listed twice", index, f.Name)
		}
		seen[f.Name] = true
		prefix := f.PrefixLen
		switch c.Type {
		case metapb.PropType_DURATION:
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT,
				"index %q: field %q is a DURATION, which has no order and cannot be indexed", index, f.Name)
		case metapb.PropType_STRING:
			if prefix < 1 || prefix > maxIndexPrefixLen {
				return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT,
					"index %q: STRING field %q needs a prefix_len in [1, %d], got %d", index, f.Name, maxIndexPrefixLen, prefix)
			}
		case metapb.PropType_FIXED_STRING:
			if prefix == 0 {
				prefix = c.FixedLen
			}
			if prefix < 1 || prefix > c.FixedLen {
				return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT,
					"index %q: FIXED_STRING(%d) field %q: prefix_len %d is not in [1, %d] (0: the whole value)", index, c.FixedLen, f.Name, f.PrefixLen, c.FixedLen)
			}
			if prefix > maxIndexPrefixLen {
				return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT,
					"index %q: FIXED_STRING(%d) field %q: indexing %d bytes, more than %d; give a shorter prefix_len", index, c.FixedLen, f.Name, prefix, maxIndexPrefixLen)
			}
		default:
			if prefix != 0 {
				return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT,
					"index %q: field %q is %s, which takes no prefix_len (got %d)", index, f.Name, c.Type, prefix)
			}
		}
		out = append(out, &metapb.IndexField{Name: f.Name, PrefixLen: prefix})
	}
	return out, nil
}

func normalizeDefault(where string, c *metapb.ColumnDef) (*commonpb.Value, error) {
	mismatch := func(kind string) error {
		return errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: a %s default does not fit type %s", where, kind, c.Type)
	}
	switch v := c.DefaultValue.V.(type) {
	case nil, *commonpb.Value_Null:
		if !c.Nullable {
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: default NULL on a column that is not nullable", where)
		}
		return &commonpb.Value{V: &commonpb.Value_Null{Null: true}}, nil
	case *commonpb.Value_BoolVal:
		if c.Type != metapb.PropType_BOOL {
			return nil, mismatch("bool")
		}
	case *commonpb.Value_IntVal:
		switch c.Type {
		case metapb.PropType_INT64:
		case metapb.PropType_DOUBLE:
			return &commonpb.Value{V: &commonpb.Value_FloatVal{FloatVal: float64(v.IntVal)}}, nil
		case metapb.PropType_TIMESTAMP:
			return &commonpb.Value{V: &commonpb.Value_TimestampVal{TimestampVal: v.IntVal}}, nil
		default:
			return nil, mismatch("integer")
		}
	case *commonpb.Value_FloatVal:
		if c.Type != metapb.PropType_DOUBLE {
			return nil, mismatch("double")
		}
	case *commonpb.Value_StrVal:
		switch c.Type {
		case metapb.PropType_STRING:
		case metapb.PropType_FIXED_STRING:
			if len(v.StrVal) > int(c.FixedLen) {
				return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: default is %d bytes, longer than FIXED_STRING(%d)", where, len(v.StrVal), c.FixedLen)
			}
		default:
			return nil, mismatch("string")
		}
	case *commonpb.Value_TimestampVal:
		if c.Type != metapb.PropType_TIMESTAMP {
			return nil, mismatch("timestamp")
		}
	case *commonpb.Value_DateVal:
		if c.Type != metapb.PropType_DATE {
			return nil, mismatch("date")
		}
		if !temporal.Date(v.DateVal).Valid() {
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: default date %d days is out of range", where, v.DateVal)
		}
	case *commonpb.Value_TimeVal:
		if c.Type != metapb.PropType_TIME {
			return nil, mismatch("time")
		}
		if !temporal.Time(v.TimeVal).Valid() {
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: default time %d microseconds is out of range", where, v.TimeVal)
		}
	case *commonpb.Value_DatetimeVal:
		if c.Type != metapb.PropType_DATETIME {
			return nil, mismatch("datetime")
		}
		if !temporal.DateTime(v.DatetimeVal).Valid() {
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: default datetime %d microseconds is out of range", where, v.DatetimeVal)
		}
	case *commonpb.Value_DurationVal:
		if c.Type != metapb.PropType_DURATION {
			return nil, mismatch("duration")
		}
		if v.DurationVal == nil {
			return &commonpb.Value{V: &commonpb.Value_DurationVal{DurationVal: &commonpb.Duration{}}}, nil
		}
	case *commonpb.Value_ListVal:
		return nil, mismatch("list")
	default:
		return nil, mismatch(fmt.Sprintf("%T", v))
	}
	return c.DefaultValue, nil
}

// PlaceParts assigns replicaFactor replicas to each of partNum partitions
// over hosts (at least replicaFactor of them, in the order given: metad
// orders them zone by zone in turn). Partition p starts at host (p-1) mod n and takes the next replicaFactor
// hosts cyclically, so replicas are distinct within a partition, every host
// carries partNum*replicaFactor/n replicas (±1), and the first replicas, the
// natural initial leaders, rotate over the hosts too. With hosts ordered
// zone by zone in turn, consecutive hosts are in different zones wherever
// the zones allow, so a partition's replicas are too.
func PlaceParts(partNum, replicaFactor int32, hosts []uint64) []*metapb.PartAlloc {
	n := len(hosts)
	parts := make([]*metapb.PartAlloc, partNum)
	for p := range partNum {
		replicas := make([]uint64, replicaFactor)
		for i := range replicaFactor {
			replicas[i] = hosts[(int(p)+int(i))%n]
		}
		parts[p] = &metapb.PartAlloc{PartId: p + 1, Replicas: replicas, InitialReplicas: slices.Clone(replicas)}
	}
	return parts
}

// AlterOps checks the shape of ALTER operations, before any catalog
// read.
func AlterOps(where string, req *metapb.AlterSchemaReq) error {
	if len(req.Ops) == 0 && !req.SetTtl && !req.SetComment {
		return errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: nothing to alter (no operations, no TTL, no comment)", where)
	}
	for i, op := range req.Ops {
		if op == nil {
			return errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: operation %d is missing", where, i)
		}
		switch op.Kind {
		case metapb.AlterSchemaOp_ADD, metapb.AlterSchemaOp_CHANGE:
			if len(op.Columns) == 0 || len(op.Names) > 0 {
				return errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: operation %d (%s) needs columns and no names", where, i, op.Kind)
			}
			for j, c := range op.Columns {
				if c == nil {
					return errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: operation %d (%s): column %d is missing", where, i, op.Kind, j)
				}
			}
		case metapb.AlterSchemaOp_DROP:
			if len(op.Names) == 0 || len(op.Columns) > 0 {
				return errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: operation %d (DROP) needs column names and no column definitions", where, i)
			}
		case metapb.AlterSchemaOp_KIND_UNSPECIFIED:
			return errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: operation %d has no kind", where, i)
		default:
			return errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: operation %d has unknown kind %d", where, i, op.Kind)
		}
	}
	return nil
}

// Alter computes the schema version that follows prev under req (whose
// ops AlterOps accepted). indexes are the indexes on the schema: their
// columns may be neither dropped nor changed.
func Alter(where string, prev *metapb.Schema, req *metapb.AlterSchemaReq, indexes []*metapb.IndexDesc) (*metapb.Schema, error) {
	if prev.Version == math.MaxInt32 {
		return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: schema versions are exhausted", where)
	}
	cols := slices.Clone(prev.Columns) // entries are replaced, never modified
	find := func(name string) int {
		return slices.IndexFunc(cols, func(c *metapb.ColumnDef) bool { return c.Name == name })
	}
	indexUsing := func(col string) *metapb.IndexDesc {
		for _, x := range indexes {
			if slices.ContainsFunc(x.Fields, func(f *metapb.IndexField) bool { return f.Name == col }) {
				return x
			}
		}
		return nil
	}
	var dropped []string
	for _, op := range req.Ops {
		switch op.Kind {
		case metapb.AlterSchemaOp_ADD:
			for _, c := range op.Columns {
				if find(c.Name) >= 0 {
					return nil, errorf(commonpb.ErrorCode_E_EXISTED, "%s: cannot add column %q: it already exists", where, c.Name)
				}
				// Rows written before have no value for the column; they
				// read its default, or NULL.
				if !c.Nullable && c.DefaultValue == nil {
					return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT,
						"%s: column %q is added NOT NULL without a default, so existing rows would have no value for it", where, c.Name)
				}
				cols = append(cols, c)
			}
		case metapb.AlterSchemaOp_DROP:
			for _, name := range op.Names {
				i := find(name)
				if i < 0 {
					return nil, errorf(commonpb.ErrorCode_E_PROP_NOT_FOUND, "%s: cannot drop column %q: no such column", where, name)
				}
				if x := indexUsing(name); x != nil {
					return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: cannot drop column %q: index %q uses it; drop the index first", where, name, x.Name)
				}
				cols = slices.Delete(cols, i, i+1)
				dropped = append(dropped, name)
			}
		case metapb.AlterSchemaOp_CHANGE:
			for _, c := range op.Columns {
				i := find(c.Name)
				if i < 0 {
					return nil, errorf(commonpb.ErrorCode_E_PROP_NOT_FOUND, "%s: cannot change column %q: no such column", where, c.Name)
				}
				if x := indexUsing(c.Name); x != nil {
					return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: cannot change column %q: index %q uses it; drop the index first", where, c.Name, x.Name)
				}
				cols[i] = c
			}
		}
	}
	out, err := Columns(where, cols)
	if err != nil {
		return nil, err
	}
	next := &metapb.Schema{Version: prev.Version + 1, Columns: out, TtlCol: prev.TtlCol, TtlDuration: prev.TtlDuration, Comment: prev.Comment}
	if req.SetComment {
		next.Comment = req.Comment
	}
	if req.SetTtl {
		next.TtlCol, next.TtlDuration = req.TtlCol, req.TtlDuration
	} else if next.TtlCol != "" && slices.Contains(dropped, next.TtlCol) && find(next.TtlCol) < 0 {
		return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT,
			"%s: cannot drop column %q: it is the TTL column; clear or change the TTL first (or in the same request)", where, next.TtlCol)
	}
	if err := TTL(where, out, next.TtlCol, next.TtlDuration); err != nil {
		return nil, err
	}
	return next, nil
}

// fieldNames lists an index's field names, in order.
func fieldNames(fields []*metapb.IndexField) []string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	return names
}

// NewIndex refuses a new index on schema (a tag or edge type, as messages
// name it) with the fields of one of indexes, the indexes already on it.
func NewIndex(schema string, indexes []*metapb.IndexDesc, fields []*metapb.IndexField) error {
	for _, x := range indexes {
		if slices.Equal(fieldNames(x.Fields), fieldNames(fields)) {
			return errorf(commonpb.ErrorCode_E_EXISTED, "index %q on %s already indexes the same fields (%s)",
				x.Name, schema, strings.Join(fieldNames(fields), ", "))
		}
	}
	return nil
}

// DropSchema refuses dropping schema (a tag or edge type, as messages name
// it) while indexes, the indexes on it, exist.
func DropSchema(schema string, indexes []*metapb.IndexDesc) error {
	if len(indexes) == 0 {
		return nil
	}
	names := make([]string, len(indexes))
	for i, x := range indexes {
		names[i] = strconv.Quote(x.Name)
	}
	return errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s has index %s: drop the index first", schema, strings.Join(names, ", "))
}
