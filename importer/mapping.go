package importer

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/novagraph/novagraph/internal/schema"
	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/parser"
	"github.com/novagraph/novagraph/query/value"
	"github.com/novagraph/novagraph/temporal"
)

// A mapper turns the rows of one source into vertex and edge writes for
// one space. It is compiled once against the catalog (names → ids, column
// types), so a row costs parsing and encoding only. A mapper keeps scratch
// buffers: it belongs to the one goroutine reading its source.
type mapper struct {
	space *metapb.SpaceDesc
	tags  []*tagMapper
	edges []*edgeMapper

	edgeSlab []storagepb.NewEdge // see newEdge
	pending  []seenID            // mapRow's scratch: see seenID
}

type tagMapper struct {
	key    string // config key, for errors: sources[0].tags[1]
	name   string
	id     int32
	delete bool
	filter *filter
	vid    vidMapper
	row    rowMapper
	// seen, if set, drops a vertex already written by this import: a SNAP
	// edge list names each vertex once per edge, and writing a vertex with
	// no properties again changes nothing.
	seen *seenSet
}

// seenSet is the set of INT64 vids a tag's mappings already wrote, shared
// by the goroutines mapping one source.
type seenSet struct {
	mu  sync.Mutex
	ids *roaring64.Bitmap
}

func newSeenSet() *seenSet { return &seenSet{ids: roaring64.New()} }

// claim adds id and reports whether it was new: the row that claims a
// vertex writes it, so it is written once even by concurrent mappers.
func (s *seenSet) claim(id uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ids.CheckedAdd(id)
}

func (s *seenSet) unclaim(id uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids.Remove(id)
}

// seenID is a vid a row claimed. A row refused by a later column writes
// nothing, so it gives its claims back and the next row naming the vertex
// writes it. (A row mapped concurrently that met the claim before it was
// given back skipped the vertex; mappers of one source run in parallel
// only in SST mode, and the window is one row's mapping.)
type seenID struct {
	set *seenSet
	id  uint64
}

type edgeMapper struct {
	key      string
	name     string
	edgeType int32
	delete   bool
	filter   *filter
	src, dst vidMapper
	rank     int // column, or -1 for rank 0
	row      rowMapper
}

// write is one vertex or edge change, for partition part.
type write struct {
	part   int32
	vertex *storagepb.NewVertex
	edge   *storagepb.NewEdge
	// delete: vertex carries the vid and delTag the tag; edge the key.
	delete bool
	delTag int32
}

func newMapper(snap *catalog.Snapshot, space *metapb.SpaceDesc, key string, src *Source) (*mapper, error) {
	m := &mapper{space: space}
	for i, t := range src.Tags {
		k := fmt.Sprintf("%s.tags[%d]", key, i)
		tag, ok := snap.TagByName(space.GetSpaceId(), t.Name)
		if !ok {
			return nil, fmt.Errorf("%s.name: tag %q not found in space %q", k, t.Name, space.GetName())
		}
		tm := &tagMapper{key: k, name: t.Name, id: tag.GetTagId(), delete: strings.EqualFold(t.Mode, "DELETE")}
		var err error
		if tm.filter, err = newFilter(k, t.Filter); err != nil {
			return nil, err
		}
		if tm.vid, err = newVidMapper(space, k+".id", t.ID); err != nil {
			return nil, err
		}
		if !tm.delete {
			if tm.row, err = newRowMapper(fmt.Sprintf("tag %q", t.Name), k, tag.GetVersions(), t.Props); err != nil {
				return nil, err
			}
		}
		m.tags = append(m.tags, tm)
	}
	for i, e := range src.Edges {
		k := fmt.Sprintf("%s.edges[%d]", key, i)
		edge, ok := snap.EdgeByName(space.GetSpaceId(), e.Name)
		if !ok {
			return nil, fmt.Errorf("%s.name: edge %q not found in space %q", k, e.Name, space.GetName())
		}
		em := &edgeMapper{key: k, name: e.Name, edgeType: edge.GetEdgeType(), delete: strings.EqualFold(e.Mode, "DELETE"), rank: -1}
		var err error
		if em.filter, err = newFilter(k, e.Filter); err != nil {
			return nil, err
		}
		if em.src, err = newVidMapper(space, k+".src.id", e.Src.ID); err != nil {
			return nil, err
		}
		if em.dst, err = newVidMapper(space, k+".dst.id", e.Dst.ID); err != nil {
			return nil, err
		}
		if e.Rank != nil {
			em.rank = e.Rank.Index
		}
		if !em.delete {
			if em.row, err = newRowMapper(fmt.Sprintf("edge %q", e.Name), k, edge.GetVersions(), e.Props); err != nil {
				return nil, err
			}
		}
		m.edges = append(m.edges, em)
	}
	return m, nil
}

// mapRow appends the writes of one row to out. nulls, if not nil, marks
// the fields that are NULL (Parquet); a text field is NULL when it equals
// the property's nullValue. An error names the column and the value that
// could not be used; the row then writes nothing.
func (m *mapper) mapRow(fields []string, nulls []bool, out []write) ([]write, error) {
	start := len(out)
	m.pending = m.pending[:0]
	fail := func(err error) ([]write, error) {
		for _, p := range m.pending {
			p.set.unclaim(p.id)
		}
		return out[:start], err
	}
	for _, t := range m.tags {
		if ok, err := t.filter.keep(fields); err != nil || !ok {
			if err != nil {
				return fail(err)
			}
			continue
		}
		vid, err := t.vid.vid(fields)
		if err != nil {
			return fail(fmt.Errorf("tag %s: %w", t.name, err))
		}
		if t.seen != nil {
			id, _ := partition.DecodeInt64Vid(vid)
			if !t.seen.claim(uint64(id)) {
				continue
			}
			m.pending = append(m.pending, seenID{t.seen, uint64(id)})
		}
		w := write{part: m.partOf(vid), vertex: &storagepb.NewVertex{Vid: vid}}
		if t.delete {
			w.delete, w.delTag = true, t.id
		} else {
			row, err := t.row.encode(fields, nulls)
			if err != nil {
				return fail(fmt.Errorf("tag %s: %w", t.name, err))
			}
			w.vertex.Tags = []*storagepb.NewTag{{TagId: t.id, Row: row}}
		}
		out = append(out, w)
	}
	for _, e := range m.edges {
		if ok, err := e.filter.keep(fields); err != nil || !ok {
			if err != nil {
				return fail(err)
			}
			continue
		}
		src, err := e.src.vid(fields)
		if err != nil {
			return fail(fmt.Errorf("edge %s src: %w", e.name, err))
		}
		dst, err := e.dst.vid(fields)
		if err != nil {
			return fail(fmt.Errorf("edge %s dst: %w", e.name, err))
		}
		var rank int64
		if e.rank >= 0 {
			if e.rank >= len(fields) {
				return fail(fmt.Errorf("edge %s rank: column %d missing (row has %d)", e.name, e.rank, len(fields)))
			}
			if rank, err = strconv.ParseInt(fields[e.rank], 10, 64); err != nil {
				return fail(fmt.Errorf("edge %s rank: column %d: %q is not an integer", e.name, e.rank, fields[e.rank]))
			}
		}
		ne := m.newEdge()
		ne.Src, ne.EdgeType, ne.Rank, ne.Dst = src, e.edgeType, rank, dst
		if !e.delete {
			if ne.Row, err = e.row.encode(fields, nulls); err != nil {
				return fail(fmt.Errorf("edge %s: %w", e.name, err))
			}
		}
		out = append(out, write{part: m.partOf(src), edge: ne, delete: e.delete})
	}
	return out, nil
}

// newEdge returns a zero NewEdge from a slab: one allocation per
// edgeSlab edges instead of one per edge (a tenth of an SST import's
// allocations). A slab stays alive while any of its edges is referenced.
func (m *mapper) newEdge() *storagepb.NewEdge {
	if len(m.edgeSlab) == 0 {
		m.edgeSlab = make([]storagepb.NewEdge, edgeSlab)
	}
	ne := &m.edgeSlab[0]
	m.edgeSlab = m.edgeSlab[1:]
	return ne
}

const edgeSlab = 512

func (m *mapper) partOf(vid []byte) int32 {
	return partition.PartOf(vid, partition.VidType(m.space.GetVidType()), m.space.GetPartitionNum())
}

// vidMapper reads a vid from a row and encodes it for the space.
type vidMapper struct {
	isInt  bool
	vidLen int
	col    int // -1 when concat is used
	concat []any
	prefix string
	buf    strings.Builder
}

func newVidMapper(space *metapb.SpaceDesc, key string, spec IDSpec) (vidMapper, error) {
	isInt := space.GetVidType() == metapb.VidType_VID_INT64
	switch strings.ToUpper(spec.Type) {
	case "INT", "INT64":
		if !isInt {
			return vidMapper{}, fmt.Errorf("%s.type: INT, but space %q has vid_type FIXED_STRING(%d)", key, space.GetName(), space.GetVidLen())
		}
	case "STRING":
		if isInt {
			return vidMapper{}, fmt.Errorf("%s.type: STRING, but space %q has vid_type INT64", key, space.GetName())
		}
	}
	if isInt && (spec.Prefix != "" || len(spec.ConcatItems) > 0) {
		return vidMapper{}, fmt.Errorf("%s: prefix and concatItems make string vids, but space %q has vid_type INT64", key, space.GetName())
	}
	v := vidMapper{isInt: isInt, vidLen: int(space.GetVidLen()), col: -1, concat: spec.ConcatItems, prefix: spec.Prefix}
	// As in nebula-importer v4, concatItems win over index: the vid is
	// prefix + the concatenation, whatever column index names.
	if spec.Index != nil && len(spec.ConcatItems) == 0 {
		v.col = *spec.Index
	}
	return v, nil
}

func (v *vidMapper) vid(fields []string) ([]byte, error) {
	var s string
	if v.col >= 0 {
		if v.col >= len(fields) {
			return nil, fmt.Errorf("vid column %d missing (row has %d columns)", v.col, len(fields))
		}
		s = fields[v.col]
	}
	if v.isInt {
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("vid column %d: %q is not an INT64", v.col, s)
		}
		return partition.EncodeInt64Vid(i), nil
	}
	if v.col < 0 || v.prefix != "" {
		v.buf.Reset()
		v.buf.WriteString(v.prefix)
		if v.col >= 0 {
			v.buf.WriteString(s)
		}
		for _, it := range v.concat {
			switch x := it.(type) {
			case int:
				if x >= len(fields) {
					return nil, fmt.Errorf("vid concat column %d missing (row has %d columns)", x, len(fields))
				}
				v.buf.WriteString(fields[x])
			case string:
				v.buf.WriteString(x)
			}
		}
		s = v.buf.String()
	}
	b, err := partition.EncodeStringVid(s, v.vidLen)
	if err != nil {
		if v.col >= 0 {
			return nil, fmt.Errorf("vid column %d: %w", v.col, err) // err quotes the vid
		}
		return nil, err
	}
	return b, nil
}

// rowMapper builds the property row of one tag or edge from a row's
// columns, with the schema's newest version.
type rowMapper struct {
	what   string
	schema *partition.Schema
	cols   []colMapper // one per schema column
	values []any       // scratch
}

type colMapper struct {
	name      string
	src       []int // columns to read, in order, until one is not NULL; empty: not mapped
	nullable  bool
	nullValue string
	hasNull   bool // nullValue was given
	// def is the schema's default, for a property no column is mapped
	// to (as INSERT leaves it out); nullDef the config's defaultValue, for
	// a mapped column that is NULL. A NULL with no defaultValue is NULL, as
	// INSERT ... VALUES (NULL) stores it, whatever the schema's default.
	def, nullDef       any
	hasDef, hasNullDef bool
	// defExpr is the schema's default when it is evaluated at each write
	// (DEFAULT now()), for a property no column is mapped to.
	defExpr ast.Expr
	col     *metapb.ColumnDef
	parse   func(string) (any, error)
}

func newRowMapper(what, key string, versions []*metapb.Schema, props []PropSpec) (rowMapper, error) {
	desc := versions[len(versions)-1]
	rm := rowMapper{what: what, schema: schema.FromProto(desc)}
	rm.cols = make([]colMapper, len(desc.GetColumns()))
	rm.values = make([]any, len(desc.GetColumns()))
	for i, c := range desc.GetColumns() {
		cm := &rm.cols[i]
		cm.name = c.GetName()
		cm.nullable = c.GetNullable()
		cm.parse = parserFor(c)
		if d := c.GetDefaultValue(); d != nil {
			cm.def, cm.hasDef = schema.ValueFromProto(d), true
		}
		cm.col = c
		if text := c.GetDefaultExpr(); text != "" {
			e, err := parser.ParseExpr(text)
			if err != nil {
				return rowMapper{}, fmt.Errorf("%s: default of property %q of %s: %v", key, c.GetName(), what, err)
			}
			cm.defExpr = e
		}
	}
	for i, p := range props {
		k := fmt.Sprintf("%s.props[%d]", key, i)
		ci := rm.schema.Index(p.Name)
		if ci < 0 {
			return rowMapper{}, fmt.Errorf("%s.name: %s has no property %q", k, what, p.Name)
		}
		c := desc.GetColumns()[ci]
		if p.Type != "" && !typeMatches(p.Type, c) {
			return rowMapper{}, fmt.Errorf("%s.type: %q, but property %q of %s is %s", k, p.Type, p.Name, what, c.GetType())
		}
		cm := &rm.cols[ci]
		cm.src = append([]int{p.Index}, p.AlternativeIndices...)
		if p.Nullable {
			if !c.GetNullable() {
				return rowMapper{}, fmt.Errorf("%s.nullable: property %q of %s is NOT NULL", k, p.Name, what)
			}
			cm.nullValue, cm.hasNull = p.NullValue, true
		}
		if p.DefaultValue != nil {
			v, err := cm.parse(*p.DefaultValue)
			if err != nil {
				return rowMapper{}, fmt.Errorf("%s.defaultValue: %v", k, err)
			}
			cm.nullDef, cm.hasNullDef = v, true
		}
	}
	for _, cm := range rm.cols {
		if len(cm.src) == 0 && !cm.hasDef && !cm.nullable {
			return rowMapper{}, fmt.Errorf("%s.props: property %q of %s is NOT NULL and has no default: map it to a column", key, cm.name, what)
		}
	}
	return rm, nil
}

func (rm *rowMapper) encode(fields []string, nulls []bool) ([]byte, error) {
	for i := range rm.cols {
		cm := &rm.cols[i]
		v, err := cm.value(fields, nulls)
		if err != nil {
			return nil, err
		}
		rm.values[i] = v
	}
	row, err := partition.EncodeRow(rm.schema, rm.values)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rm.what, err)
	}
	return row, nil
}

func (cm *colMapper) value(fields []string, nulls []bool) (any, error) {
	for _, col := range cm.src {
		if col >= len(fields) {
			return nil, fmt.Errorf("property %s: column %d missing (row has %d columns)", cm.name, col, len(fields))
		}
		s := fields[col]
		if nulls != nil && nulls[col] || cm.hasNull && s == cm.nullValue {
			continue
		}
		v, err := cm.parse(s)
		if err != nil {
			return nil, fmt.Errorf("property %s: column %d: %w", cm.name, col, err)
		}
		return v, nil
	}
	switch {
	case len(cm.src) == 0 && cm.defExpr != nil:
		v, err := schema.ColumnValue(cm.defExpr, cm.col)
		if err != nil {
			return nil, fmt.Errorf("property %s: default: %w", cm.name, err)
		}
		return v, nil
	case len(cm.src) == 0 && cm.hasDef:
		return cm.def, nil
	case cm.hasNullDef:
		return cm.nullDef, nil
	case !cm.nullable:
		return nil, fmt.Errorf("property %s is NOT NULL, and its column is null", cm.name)
	}
	return nil, nil
}

func typeMatches(t string, c *metapb.ColumnDef) bool {
	t = strings.ToUpper(strings.TrimSpace(t))
	switch c.GetType() {
	case metapb.PropType_INT64:
		return t == "INT" || t == "INT64" || t == "INT32" || t == "INT16" || t == "INT8"
	case metapb.PropType_DOUBLE:
		return t == "DOUBLE" || t == "FLOAT"
	case metapb.PropType_STRING, metapb.PropType_FIXED_STRING:
		return t == "STRING" || strings.HasPrefix(t, "FIXED_STRING")
	}
	return t == c.GetType().String()
}

// parserFor converts a column's text to the codec's Go value (see
// partition.PropType).
func parserFor(c *metapb.ColumnDef) func(string) (any, error) {
	switch c.GetType() {
	case metapb.PropType_INT64:
		return func(s string) (any, error) {
			i, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%q is not an INT64", s)
			}
			return i, nil
		}
	case metapb.PropType_DOUBLE:
		return func(s string) (any, error) {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, fmt.Errorf("%q is not a DOUBLE", s)
			}
			return f, nil
		}
	case metapb.PropType_BOOL:
		return func(s string) (any, error) {
			b, err := strconv.ParseBool(s)
			if err != nil {
				return nil, fmt.Errorf("%q is not a BOOL", s)
			}
			return b, nil
		}
	case metapb.PropType_FIXED_STRING:
		n := int(c.GetFixedLen())
		return func(s string) (any, error) {
			if len(s) > n {
				// As INSERT: cut at a character boundary. The cut is
				// this value's own: n is the column's length for every
				// row after it.
				cut := n
				for cut > 0 && !utf8.RuneStart(s[cut]) {
					cut--
				}
				s = s[:cut]
			}
			return s, nil
		}
	case metapb.PropType_TIMESTAMP:
		return func(s string) (any, error) {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				return i, nil
			}
			dt, err := temporal.ParseDateTime(s)
			if err != nil {
				return nil, fmt.Errorf("%q is neither epoch seconds nor a datetime", s)
			}
			return dt.Unix(), nil
		}
	case metapb.PropType_DATE:
		return func(s string) (any, error) { return temporal.ParseDate(s) }
	case metapb.PropType_TIME:
		return func(s string) (any, error) { return temporal.ParseTime(s) }
	case metapb.PropType_DATETIME:
		return func(s string) (any, error) { return temporal.ParseDateTime(s) }
	case metapb.PropType_DURATION:
		return func(s string) (any, error) { return temporal.ParseDuration(s) }
	}
	return func(s string) (any, error) { return s, nil }
}

// filter is a compiled v4 filter expression.
type filter struct {
	text string
	expr ast.Expr
	// maxCol is the largest i of the Record[i] the filter reads with a
	// constant i, -1 if none: a row without that column is an error, not
	// a NULL that would drop every row without a word.
	maxCol int
}

func newFilter(key string, f *Filter) (*filter, error) {
	if f == nil || strings.TrimSpace(f.Expr) == "" {
		return nil, nil
	}
	// Record[i] becomes $Record[i], a query parameter the row supplies.
	e, err := parser.ParseExpr(paramRecord(f.Expr))
	if err != nil {
		return nil, fmt.Errorf("%s.filter.expr: %v", key, err)
	}
	flt := &filter{text: f.Expr, expr: e, maxCol: -1}
	ast.Inspect(e, func(x ast.Expr) bool {
		if sub, ok := x.(*ast.SubscriptExpr); ok {
			p, isParam := sub.X.(*ast.ParamExpr)
			lit, isLit := sub.Index.(*ast.Literal)
			if isParam && p.Name == "Record" && isLit {
				if i, ok := lit.Value.IntVal(); ok && i >= 0 {
					flt.maxCol = max(flt.maxCol, int(i))
				}
			}
		}
		return true
	})
	return flt, nil
}

// paramRecord writes each word Record of a v4 filter outside its string
// literals as $Record.
func paramRecord(expr string) string {
	const word = "Record"
	var b strings.Builder
	var quote byte // the open literal's quote, 0 outside one
	isWord := func(c byte) bool { return c == '_' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z' }
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case quote != 0:
			if c == '\\' && i+1 < len(expr) {
				b.WriteByte(c)
				i++
				c = expr[i]
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case strings.HasPrefix(expr[i:], word) && (i == 0 || !isWord(expr[i-1])) &&
			(i+len(word) == len(expr) || !isWord(expr[i+len(word)])):
			b.WriteString("$" + word)
			i += len(word) - 1
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func (f *filter) keep(fields []string) (bool, error) {
	if f == nil {
		return true, nil
	}
	if f.maxCol >= len(fields) {
		return false, fmt.Errorf("filter %q reads Record[%d], but the row has %d columns", f.text, f.maxCol, len(fields))
	}
	items := make([]value.Value, len(fields))
	for i, s := range fields {
		items[i] = value.Str(s)
	}
	v, err := eval.Eval(recordContext{record: value.List(items...)}, f.expr)
	if err != nil {
		return false, fmt.Errorf("filter %q: %w", f.text, err)
	}
	b, ok := v.BoolVal()
	return ok && b, nil
}

// recordContext evaluates filters: only $Record exists.
type recordContext struct {
	record value.Value
}

func (c recordContext) Param(name string) (value.Value, bool) {
	if name == "Record" {
		return c.record, true
	}
	return value.Value{}, false
}

func (recordContext) EdgeProp(edge, prop string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("%s.%s: a filter reads only Record[i]", edge, prop)
}
func (recordContext) SrcProp(tag, prop string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("$^.%s.%s: a filter reads only Record[i]", tag, prop)
}
func (recordContext) DstProp(tag, prop string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("$$.%s.%s: a filter reads only Record[i]", tag, prop)
}
func (recordContext) InputProp(col string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("$-.%s: a filter reads only Record[i]", col)
}
func (recordContext) VarProp(v, col string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("$%s.%s: a filter reads only Record[i]", v, col)
}
