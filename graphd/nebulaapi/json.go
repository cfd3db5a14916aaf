package nebulaapi

import (
	"errors"
	"math"
	"slices"
	"strconv"

	"github.com/vesoft-inc/nebula-go/v3/nebula"
	"github.com/vesoft-inc/nebula-go/v3/nebula/graph"
)

// NebulaGraph 3.x's graphd answers executeJson with
// folly::toJson(ExecutionResponse::toJson()) (src/graph/service/
// GraphService.cpp, src/common/graph/Response.h, and the toJson and
// getMetaData methods of src/common/datatypes/*). ResponseJSON writes the
// same bytes by hand instead of through encoding/json, because three
// details of folly's serializer differ from Go's:
//
//   - Key order. folly::dynamic objects are F14NodeMaps and toJson does
//     not sort keys (serialization_opts.sort_keys is false). An F14 map of
//     at most one chunk (14 entries) iterates from its last slot to its
//     first, that is in reverse insertion order, and every fixed-shape
//     object graphd builds is that small. So the result object reads
//     comment, planDesc, spaceName, data, columns, errors, latencyInUs;
//     an error object message, code; a row meta, row; vertex metadata
//     type, id. Captured executeJson answers of real graphd servers show
//     exactly these orders. Objects made from Nebula's unordered_maps
//     (vertex and edge properties, map values, otherStats, nodeIndexMap)
//     come out in hash order, which no client can rely on; they are
//     written here with their keys sorted, and a map's metadata list
//     follows the same sorted order so that it lines up with the map.
//   - Floats. folly prints doubles with double-conversion's ToShortest,
//     decimal_in_shortest_low -6, high 21, exponent character 'E' and no
//     flags: 1.0 is 1, 1e21 is 1E21, 1.5e-7 is 1.5E-7, -0.0 is -0. NaN and
//     infinities make folly::toJson throw, so graphd's executeJson fails;
//     ResponseJSON returns an error for them.
//   - Strings. folly escapes only '"', '\\' and bytes below 0x20 (\b, \f,
//     \n, \r, \t, else \u00xx in lowercase hex) and copies every other
//     byte as is: no HTML escaping, no U+2028/U+2029 escaping, and
//     invalid UTF-8 passes through unchanged.
//
// The output is compact: no spaces or newlines.

// errJSONNonFinite is folly::toJson's refusal of a NaN or an infinity.
var errJSONNonFinite = errors.New("folly::toJson: JSON object value was a NaN or INF")

// ResponseJSON renders one execution response as NebulaGraph 3.x's graphd renders it for executeJson / executeJsonWithParameter.
//
// The shape is
//
//	{"errors":[E],"results":[{"comment":..,"planDesc":..,"spaceName":..,
//	  "data":[{"meta":[..],"row":[..]},..],"columns":[..],"errors":E,
//	  "latencyInUs":N}]}
//
// where E is {"message":..,"code":N} or {"code":N}. Optional fields of r
// (ErrorMsg, SpaceName, Comment, Data, PlanDesc) appear exactly when they
// are set, that is non-nil, as in graphd: "message" is present whenever
// ErrorMsg is non-nil, whatever the code, and "columns" and "data" only
// when Data is non-nil.
func ResponseJSON(r *graph.ExecutionResponse) ([]byte, error) {
	if r == nil {
		return nil, errors.New("nebulaapi: nil execution response")
	}
	w := &jsonWriter{buf: make([]byte, 0, 256)}
	w.response(r)
	if w.err != nil {
		return nil, w.err
	}
	return w.buf, nil
}

// jsonWriter appends folly-compatible JSON to buf; the first error (a
// non-finite float) sticks in err.
type jsonWriter struct {
	buf []byte
	err error
}

func (w *jsonWriter) raw(s string) { w.buf = append(w.buf, s...) }

// key writes a quoted object key and its colon, preceded by a comma
// unless first.
func (w *jsonWriter) key(k string, first bool) {
	if !first {
		w.buf = append(w.buf, ',')
	}
	w.str(k)
	w.buf = append(w.buf, ':')
}

func (w *jsonWriter) int(n int64) { w.buf = strconv.AppendInt(w.buf, n, 10) }

func (w *jsonWriter) bool(b bool) { w.buf = strconv.AppendBool(w.buf, b) }

func (w *jsonWriter) float(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		if w.err == nil {
			w.err = errJSONNonFinite
		}
		w.raw("null")
		return
	}
	w.buf = appendShortestDouble(w.buf, f)
}

// str writes s quoted with folly's escapes (see the file comment).
func (w *jsonWriter) str(s string) {
	const hex = "0123456789abcdef"
	b := append(w.buf, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	w.buf = append(b, '"')
}

// response is ExecutionResponse::toJson: graphd inserts latencyInUs,
// errors, columns, data, spaceName, planDesc, comment into the result
// and results, errors into the top object; both print in reverse.
func (w *jsonWriter) response(r *graph.ExecutionResponse) {
	w.raw(`{"errors":[`)
	w.errorsBody(r)
	w.raw(`],"results":[{`)
	first := true
	if r.Comment != nil {
		w.key("comment", first)
		first = false
		w.str(string(r.Comment))
	}
	if r.PlanDesc != nil {
		w.key("planDesc", first)
		first = false
		w.planDesc(r.PlanDesc)
	}
	if r.SpaceName != nil {
		w.key("spaceName", first)
		first = false
		w.str(string(r.SpaceName))
	}
	if r.Data != nil {
		w.key("data", first)
		first = false
		w.dataSet(r.Data)
		w.raw(`,"columns":[`)
		for i, c := range r.Data.ColumnNames {
			if i > 0 {
				w.raw(",")
			}
			w.str(string(c))
		}
		w.raw("]")
	}
	w.key("errors", first)
	w.errorsBody(r)
	w.raw(`,"latencyInUs":`)
	w.int(r.LatencyInUs)
	w.raw("}]}")
}

// errorsBody is {"message":..,"code":N}; graphd casts the code to int.
func (w *jsonWriter) errorsBody(r *graph.ExecutionResponse) {
	w.raw("{")
	if r.ErrorMsg != nil {
		w.key("message", true)
		w.str(string(r.ErrorMsg))
		w.raw(",")
	}
	w.raw(`"code":`)
	w.int(int64(int32(r.ErrorCode)))
	w.raw("}")
}

// dataSet is DataSet::toJson: one {"meta":[..],"row":[..]} per row, the
// column names being written by the caller (a DataSet nested in a cell
// has none).
func (w *jsonWriter) dataSet(d *nebula.DataSet) {
	w.raw("[")
	for i, row := range d.Rows {
		if i > 0 {
			w.raw(",")
		}
		var vals []*nebula.Value
		if row != nil {
			vals = row.Values
		}
		w.raw(`{"meta":[`)
		for j, v := range vals {
			if j > 0 {
				w.raw(",")
			}
			w.meta(v)
		}
		w.raw(`],"row":[`)
		for j, v := range vals {
			if j > 0 {
				w.raw(",")
			}
			w.value(v)
		}
		w.raw("]}")
	}
	w.raw("]")
}

// value is Value::toJson. A nil *Value, or one with no field set, is
// Nebula's __EMPTY__ value, which graphd writes as the string
// "__EMPTY__"; every kind of null is JSON null.
func (w *jsonWriter) value(v *nebula.Value) {
	switch {
	case v == nil:
		w.str("__EMPTY__")
	case v.NVal != nil:
		w.raw("null")
	case v.BVal != nil:
		w.bool(*v.BVal)
	case v.IVal != nil:
		w.int(*v.IVal)
	case v.FVal != nil:
		w.float(*v.FVal)
	case v.SVal != nil:
		w.str(string(v.SVal))
	case v.DVal != nil:
		w.str(dateString(v.DVal))
	case v.TVal != nil:
		w.str(timeString(v.TVal) + "Z")
	case v.DtVal != nil:
		w.str(dateTimeString(v.DtVal) + "Z")
	case v.VVal != nil:
		w.vertex(v.VVal)
	case v.EVal != nil:
		w.props(v.EVal.Props, "")
	case v.PVal != nil:
		w.path(v.PVal)
	case v.LVal != nil:
		w.list(v.LVal.Values, (*jsonWriter).value)
	case v.MVal != nil:
		w.props(v.MVal.Kvs, "")
	case v.UVal != nil:
		w.list(v.UVal.Values, (*jsonWriter).value)
	case v.GVal != nil:
		w.dataSet(v.GVal)
	case v.GgVal != nil:
		w.str(geographyWKT(v.GgVal))
	case v.DuVal != nil:
		w.str(durationString(v.DuVal))
	default:
		w.str("__EMPTY__")
	}
}

// meta is Value::getMetaData: null for scalars, strings, nulls, datasets
// and geographies (the last fall to the default branch, which returns
// null in release builds); {"type":..} for the temporal kinds; the
// metadata of the elements for lists, sets and maps.
func (w *jsonWriter) meta(v *nebula.Value) {
	switch {
	case v == nil:
		w.raw("null")
	case v.DVal != nil:
		w.raw(`{"type":"date"}`)
	case v.TVal != nil:
		w.raw(`{"type":"time"}`)
	case v.DtVal != nil:
		w.raw(`{"type":"datetime"}`)
	case v.DuVal != nil:
		w.raw(`{"type":"duration"}`)
	case v.VVal != nil:
		w.vertexMeta(v.VVal)
	case v.EVal != nil:
		e := v.EVal
		// Edge::getMetaData inserts name, src, dst, type, ranking.
		w.raw(`{"type":"edge","id":{"ranking":`)
		w.int(e.Ranking)
		w.raw(`,"type":`)
		w.int(int64(e.Type))
		w.raw(`,"dst":`)
		w.value(e.Dst)
		w.raw(`,"src":`)
		w.value(e.Src)
		w.raw(`,"name":`)
		w.str(string(e.Name))
		w.raw("}}")
	case v.PVal != nil:
		w.pathMeta(v.PVal)
	case v.LVal != nil:
		w.list(v.LVal.Values, (*jsonWriter).meta)
	case v.UVal != nil:
		w.list(v.UVal.Values, (*jsonWriter).meta)
	case v.MVal != nil:
		keys := sortedKeys(v.MVal.Kvs)
		w.raw("[")
		for i, k := range keys {
			if i > 0 {
				w.raw(",")
			}
			w.meta(v.MVal.Kvs[k])
		}
		w.raw("]")
	default:
		w.raw("null")
	}
}

func (w *jsonWriter) list(vals []*nebula.Value, each func(*jsonWriter, *nebula.Value)) {
	w.raw("[")
	for i, v := range vals {
		if i > 0 {
			w.raw(",")
		}
		each(w, v)
	}
	w.raw("]")
}

// props writes a property map as an object, keys prefixed and sorted.
func (w *jsonWriter) props(m map[string]*nebula.Value, prefix string) {
	w.raw("{")
	for i, k := range sortedKeys(m) {
		w.key(prefix+k, i == 0)
		w.value(m[k])
	}
	w.raw("}")
}

// vertex is Vertex::toJson: the properties of all tags in one object,
// keyed "tag.prop"; a later tag of the same name overwrites an earlier
// one, as folly::dynamic::update does.
func (w *jsonWriter) vertex(v *nebula.Vertex) {
	if v == nil {
		w.raw("{}")
		return
	}
	merged := map[string]*nebula.Value{}
	for _, t := range v.Tags {
		if t == nil {
			continue
		}
		for k, val := range t.Props {
			merged[string(t.Name)+"."+k] = val
		}
	}
	w.props(merged, "")
}

// vertexMeta is Vertex::getMetaData, built as object("id",..)("type",..).
func (w *jsonWriter) vertexMeta(v *nebula.Vertex) {
	w.raw(`{"type":"vertex","id":`)
	if v == nil {
		w.value(nil)
	} else {
		w.value(v.Vid)
	}
	w.raw("}")
}

// path is Path::toJson: source vertex, then each step's edge properties
// and destination vertex, in one flat list.
func (w *jsonWriter) path(p *nebula.Path) {
	w.raw("[")
	w.vertex(p.Src)
	for _, s := range p.Steps {
		w.raw(",")
		if s == nil {
			w.raw("{},{}")
			continue
		}
		w.props(s.Props, "")
		w.raw(",")
		w.vertex(s.Dst)
	}
	w.raw("]")
}

// pathMeta is Path::getMetaData. Its edge ids differ from
// Edge::getMetaData's: they are inserted src, dst, type, name, ranking,
// and src and dst are the step's ends as walked, with the step's signed
// type, not the stored edge's.
func (w *jsonWriter) pathMeta(p *nebula.Path) {
	w.raw("[")
	w.vertexMeta(p.Src)
	prev := p.Src
	for _, s := range p.Steps {
		var (
			dst     *nebula.Vertex
			typ     int32
			name    []byte
			ranking int64
		)
		if s != nil {
			dst, typ, name, ranking = s.Dst, s.Type, s.Name, s.Ranking
		}
		w.raw(`,{"type":"edge","id":{"ranking":`)
		w.int(ranking)
		w.raw(`,"name":`)
		w.str(string(name))
		w.raw(`,"type":`)
		w.int(int64(typ))
		w.raw(`,"dst":`)
		w.vid(dst)
		w.raw(`,"src":`)
		w.vid(prev)
		w.raw("}},")
		w.vertexMeta(dst)
		prev = dst
	}
	w.raw("]")
}

func (w *jsonWriter) vid(v *nebula.Vertex) {
	if v == nil {
		w.value(nil)
		return
	}
	w.value(v.Vid)
}

// planDesc is PlanDescription::toJson, inserted planNodeDescs,
// nodeIndexMap, format, optimize_time_in_us and printed in reverse.
// nodeIndexMap comes from an unordered_map; its keys are written in
// ascending node id order.
func (w *jsonWriter) planDesc(p *graph.PlanDescription) {
	w.raw(`{"optimize_time_in_us":`)
	w.int(int64(p.OptimizeTimeInUs))
	w.raw(`,"format":`)
	w.str(string(p.Format))
	w.raw(`,"nodeIndexMap":{`)
	ids := make([]int64, 0, len(p.NodeIndexMap))
	for id := range p.NodeIndexMap {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for i, id := range ids {
		w.key(strconv.FormatInt(id, 10), i == 0)
		w.int(p.NodeIndexMap[id])
	}
	w.raw(`},"planNodeDescs":[`)
	for i, n := range p.PlanNodeDescs {
		if i > 0 {
			w.raw(",")
		}
		w.planNode(n)
	}
	w.raw("]}")
}

// planNode is PlanNodeDescription::toJson, inserted name, id, outputVar,
// description, profiles, branchInfo, dependencies (the last four when
// set) and printed in reverse.
func (w *jsonWriter) planNode(n *graph.PlanNodeDescription) {
	if n == nil {
		n = &graph.PlanNodeDescription{Id: -1}
	}
	w.raw("{")
	if n.Dependencies != nil {
		w.raw(`"dependencies":[`)
		for i, d := range n.Dependencies {
			if i > 0 {
				w.raw(",")
			}
			w.int(d)
		}
		w.raw("],")
	}
	if n.BranchInfo != nil {
		w.raw(`"branchInfo":{"conditionNodeId":`)
		w.int(n.BranchInfo.ConditionNodeID)
		w.raw(`,"isDoBranch":`)
		w.bool(n.BranchInfo.IsDoBranch)
		w.raw("},")
	}
	if n.Profiles != nil {
		w.raw(`"profiles":[`)
		for i, s := range n.Profiles {
			if i > 0 {
				w.raw(",")
			}
			if s == nil {
				s = &graph.ProfilingStats{}
			}
			// ProfilingStats::toJson: rows, execDurationInUs,
			// totalDurationInUs, otherStats, printed in reverse.
			w.raw("{")
			if s.OtherStats != nil {
				w.raw(`"otherStats":{`)
				keys := make([]string, 0, len(s.OtherStats))
				for k := range s.OtherStats {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				for j, k := range keys {
					w.key(k, j == 0)
					w.str(string(s.OtherStats[k]))
				}
				w.raw("},")
			}
			w.raw(`"totalDurationInUs":`)
			w.int(s.TotalDurationInUs)
			w.raw(`,"execDurationInUs":`)
			w.int(s.ExecDurationInUs)
			w.raw(`,"rows":`)
			w.int(s.Rows)
			w.raw("}")
		}
		w.raw("],")
	}
	if n.Description != nil {
		// Each Pair is the one-key object {key: value}.
		w.raw(`"description":[`)
		for i, p := range n.Description {
			if i > 0 {
				w.raw(",")
			}
			if p == nil {
				p = &graph.Pair{}
			}
			w.raw("{")
			w.key(string(p.Key), true)
			w.str(string(p.Value))
			w.raw("}")
		}
		w.raw("],")
	}
	w.raw(`"outputVar":`)
	w.str(string(n.OutputVar))
	w.raw(`,"id":`)
	w.int(n.Id)
	w.raw(`,"name":`)
	w.str(string(n.Name))
	w.raw("}")
}

func sortedKeys(m map[string]*nebula.Value) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// appendShortestDouble appends f (finite) as double-conversion's
// ToShortest does with folly's settings: the shortest digits that read
// back as f, in decimal notation when the decimal exponent is in
// [-6, 21), else as d.dddE±x without a '+' sign.
func appendShortestDouble(b []byte, f float64) []byte {
	if f == 0 {
		if math.Signbit(f) {
			return append(b, "-0"...)
		}
		return append(b, '0')
	}
	if f < 0 {
		b = append(b, '-')
		f = -f
	}
	// strconv's shortest form is d[.ddd]e±xx; take its digits and exponent.
	var tmp [32]byte
	s := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64)
	e := slices.Index(s, 'e')
	exp, _ := strconv.Atoi(string(s[e+1:]))
	digits := make([]byte, 0, e)
	for _, c := range s[:e] {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	if exp < -6 || exp >= 21 {
		b = append(b, digits[0])
		if len(digits) > 1 {
			b = append(b, '.')
			b = append(b, digits[1:]...)
		}
		b = append(b, 'E')
		return strconv.AppendInt(b, int64(exp), 10)
	}
	point := exp + 1 // digits before the decimal point
	switch {
	case point <= 0:
		b = append(b, '0', '.')
		for range -point {
			b = append(b, '0')
		}
		b = append(b, digits...)
	case point >= len(digits):
		b = append(b, digits...)
		for range point - len(digits) {
			b = append(b, '0')
		}
	default:
		b = append(b, digits[:point]...)
		b = append(b, '.')
		b = append(b, digits[point:]...)
	}
	return b
}

// padLeft0 is folly's "{:0>N}": the decimal form of n, sign included,
// right-aligned in N columns filled with '0', so -20 becomes 000-20.
func padLeft0(n int64, width int) string {
	s := strconv.FormatInt(n, 10)
	for len(s) < width {
		s = "0" + s
	}
	return s
}

// dateString is Date::toString, printf("%d-%02d-%02d"); Date::toJson
// adds no zone suffix.
func dateString(d *nebula.Date) string {
	b := strconv.AppendInt(nil, int64(d.Year), 10)
	b = append(b, '-')
	b = appendPrintf02(b, int64(d.Month))
	b = append(b, '-')
	b = appendPrintf02(b, int64(d.Day))
	return string(b)
}

// appendPrintf02 is printf's %02d: zero-padded to two columns after the
// sign, so -5 stays -5.
func appendPrintf02(b []byte, n int64) []byte {
	if n >= 0 && n < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, n, 10)
}

// timeString is Time::toString: the fields cast to unsigned as graphd
// does, microseconds padded to six digits and followed by "000"
// (nanoseconds); Time::toJson adds "Z".
func timeString(t *nebula.Time) string {
	return padLeft0(int64(uint8(t.Hour)), 2) + ":" +
		padLeft0(int64(uint8(t.Minute)), 2) + ":" +
		padLeft0(int64(uint8(t.Sec)), 2) + "." +
		padLeft0(int64(uint32(t.Microsec)), 6) + "000"
}

// dateTimeString is DateTime::toString, the year unpadded; toJson adds
// "Z".
func dateTimeString(d *nebula.DateTime) string {
	return strconv.FormatInt(int64(d.Year), 10) + "-" +
		padLeft0(int64(uint8(d.Month)), 2) + "-" +
		padLeft0(int64(uint8(d.Day)), 2) + "T" +
		padLeft0(int64(uint8(d.Hour)), 2) + ":" +
		padLeft0(int64(uint8(d.Minute)), 2) + ":" +
		padLeft0(int64(uint8(d.Sec)), 2) + "." +
		padLeft0(int64(uint32(d.Microsec)), 6) + "000"
}

// durationString is Duration::toString,
// "P{months}MT{seconds + microseconds/1e6}.{microseconds%1e6:0>6}000S"
// with C++'s truncating division.
func durationString(d *nebula.Duration) string {
	us := int64(d.Microseconds)
	return "P" + strconv.FormatInt(int64(d.Months), 10) +
		"MT" + strconv.FormatInt(d.Seconds+us/1000000, 10) +
		"." + padLeft0(us%1000000, 6) + "000S"
}

// geographyWKT is Geography::toString, WKTWriter::write: coordinates in
// folly::to<std::string>(double) form, which is the same ToShortest as
// JSON's floats but prints NaN and Infinity instead of failing. Lists are
// written as WKTWriter does, by appending ", " after each element and
// dropping the last two bytes, so even an empty list comes out as graphd
// writes it. A Geography with no shape set is the C++ default, a point at
// (0, 0).
func geographyWKT(g *nebula.Geography) string {
	var b []byte
	coord := func(c *nebula.Coordinate) {
		if c == nil {
			c = &nebula.Coordinate{}
		}
		b = appendWKTDouble(b, c.X)
		b = append(b, ' ')
		b = appendWKTDouble(b, c.Y)
	}
	coords := func(cs []*nebula.Coordinate) {
		for _, c := range cs {
			coord(c)
			b = append(b, ", "...)
		}
		b = b[:max(len(b)-2, 0)]
	}
	switch {
	case g.LsVal != nil:
		b = append(b, "LINESTRING("...)
		coords(g.LsVal.CoordList)
		b = append(b, ')')
	case g.PgVal != nil:
		b = append(b, "POLYGON("...)
		for _, ring := range g.PgVal.CoordListList {
			b = append(b, '(')
			coords(ring)
			b = append(b, "), "...)
		}
		b = b[:max(len(b)-2, 0)]
		b = append(b, ')')
	default:
		b = append(b, "POINT("...)
		if g.PtVal != nil {
			coord(g.PtVal.Coord)
		} else {
			coord(nil)
		}
		b = append(b, ')')
	}
	return string(b)
}

func appendWKTDouble(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	}
	return appendShortestDouble(b, f)
}
