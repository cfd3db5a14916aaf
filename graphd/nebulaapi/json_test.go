package nebulaapi

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/vesoft-inc/nebula-go/v3/nebula"
	"github.com/vesoft-inc/nebula-go/v3/nebula/graph"
)

// Value constructors for the JSON tests.
func jtNull() *nebula.Value {
	n := nebula.NullType___NULL__
	return &nebula.Value{NVal: &n}
}
func jtBool(b bool) *nebula.Value     { return &nebula.Value{BVal: &b} }
func jtInt(i int64) *nebula.Value     { return &nebula.Value{IVal: &i} }
func jtFloat(f float64) *nebula.Value { return &nebula.Value{FVal: &f} }
func jtStr(s string) *nebula.Value    { return &nebula.Value{SVal: []byte(s)} }
func jtList(vs ...*nebula.Value) *nebula.Value {
	return &nebula.Value{LVal: &nebula.NList{Values: vs}}
}
func jtSet(vs ...*nebula.Value) *nebula.Value {
	return &nebula.Value{UVal: &nebula.NSet{Values: vs}}
}
func jtMap(kvs map[string]*nebula.Value) *nebula.Value {
	return &nebula.Value{MVal: &nebula.NMap{Kvs: kvs}}
}
func jtTag(name string, props map[string]*nebula.Value) *nebula.Tag {
	return &nebula.Tag{Name: []byte(name), Props: props}
}
func jtVertex(vid *nebula.Value, tags ...*nebula.Tag) *nebula.Vertex {
	return &nebula.Vertex{Vid: vid, Tags: tags}
}

// jtCell is a response holding one column "c" and one row with v.
func jtCell(v *nebula.Value) *graph.ExecutionResponse {
	return &graph.ExecutionResponse{
		ErrorCode:   nebula.ErrorCode_SUCCEEDED,
		LatencyInUs: 7,
		SpaceName:   []byte("s"),
		Data: &nebula.DataSet{
			ColumnNames: [][]byte{[]byte("c")},
			Rows:        []*nebula.Row{{Values: []*nebula.Value{v}}},
		},
	}
}

// jtCellJSON is jtCell's expected answer for a row and meta element.
func jtCellJSON(row, meta string) string {
	return `{"errors":[{"code":0}],"results":[{"spaceName":"s","data":[{"meta":[` + meta +
		`],"row":[` + row + `]}],"columns":["c"],"errors":{"code":0},"latencyInUs":7}]}`
}

func TestResponseJSONValueKinds(t *testing.T) {
	bob := jtVertex(jtStr("bob"), jtTag("person", map[string]*nebula.Value{
		"name": jtStr("Bob"), "age": jtInt(10),
	}))
	amy := jtVertex(jtStr("amy"), jtTag("person", map[string]*nebula.Value{"name": jtStr("Amy")}))
	knows := &nebula.Edge{
		Src: jtStr("bob"), Dst: jtStr("amy"), Type: 5, Name: []byte("knows"), Ranking: 2,
		Props: map[string]*nebula.Value{"since": jtInt(2020), "w": jtFloat(0.5)},
	}
	tests := []struct {
		name      string
		v         *nebula.Value
		row, meta string
	}{
		{"empty", &nebula.Value{}, `"__EMPTY__"`, `null`},
		{"nil value", nil, `"__EMPTY__"`, `null`},
		{"null", jtNull(), `null`, `null`},
		{"null NaN kind", func() *nebula.Value { n := nebula.NullType_NaN; return &nebula.Value{NVal: &n} }(), `null`, `null`},
		{"true", jtBool(true), `true`, `null`},
		{"false", jtBool(false), `false`, `null`},
		{"int", jtInt(-9223372036854775808), `-9223372036854775808`, `null`},
		{"float integral", jtFloat(1), `1`, `null`},
		{"float", jtFloat(2.2), `2.2`, `null`},
		{"float negative zero", jtFloat(math.Copysign(0, -1)), `-0`, `null`},
		{"float large", jtFloat(1e21), `1E21`, `null`},
		{"float below exponent", jtFloat(1e20), `100000000000000000000`, `null`},
		{"float small", jtFloat(1.5e-7), `1.5E-7`, `null`},
		{"float smallest decimal", jtFloat(0.000001), `0.000001`, `null`},
		{"float max", jtFloat(math.MaxFloat64), `1.7976931348623157E308`, `null`},
		{"float denormal", jtFloat(5e-324), `5E-324`, `null`},
		{"string", jtStr("hello"), `"hello"`, `null`},
		{"empty string", &nebula.Value{SVal: []byte{}}, `""`, `null`},
		{"string escapes", jtStr("a\"b\\c\n\t\r\b\f\x01\x1f/<>&\u2028\x7f"),
			`"a\"b\\c\n\t\r\b\f\u0001\u001f/<>&` + "\u2028\x7f" + `"`, `null`},
		{"string non-ASCII", jtStr("汉字"), `"汉字"`, `null`},
		{"string invalid UTF-8", jtStr("a\xffb"), "\"a\xffb\"", `null`},
		{"date", &nebula.Value{DVal: &nebula.Date{Year: 2017, Month: 9, Day: 10}}, `"2017-09-10"`, `{"type":"date"}`},
		{"date small year", &nebula.Value{DVal: &nebula.Date{Year: 5, Month: 1, Day: 2}}, `"5-01-02"`, `{"type":"date"}`},
		{"time", &nebula.Value{TVal: &nebula.Time{Hour: 23, Minute: 10, Sec: 0, Microsec: 0}},
			`"23:10:00.000000000Z"`, `{"type":"time"}`},
		{"time microseconds", &nebula.Value{TVal: &nebula.Time{Hour: 1, Minute: 2, Sec: 3, Microsec: 4005}},
			`"01:02:03.004005000Z"`, `{"type":"time"}`},
		{"datetime", &nebula.Value{DtVal: &nebula.DateTime{Year: 2010, Month: 9, Day: 10, Hour: 2, Minute: 8, Sec: 2, Microsec: 0}},
			`"2010-09-10T02:08:02.000000000Z"`, `{"type":"datetime"}`},
		{"datetime microseconds", &nebula.Value{DtVal: &nebula.DateTime{Year: 999, Month: 12, Day: 31, Hour: 23, Minute: 59, Sec: 59, Microsec: 999999}},
			`"999-12-31T23:59:59.999999000Z"`, `{"type":"datetime"}`},
		{"duration", &nebula.Value{DuVal: &nebula.Duration{Months: 1, Seconds: 100, Microseconds: 20}},
			`"P1MT100.000020000S"`, `{"type":"duration"}`},
		{"duration carry", &nebula.Value{DuVal: &nebula.Duration{Months: 0, Seconds: 1, Microseconds: 2500000}},
			`"P0MT3.500000000S"`, `{"type":"duration"}`},
		{"duration negative", &nebula.Value{DuVal: &nebula.Duration{Months: -2, Seconds: -3, Microseconds: -20}},
			`"P-2MT-3.000-20000S"`, `{"type":"duration"}`},
		{"vertex", &nebula.Value{VVal: bob},
			`{"person.age":10,"person.name":"Bob"}`, `{"type":"vertex","id":"bob"}`},
		{"vertex two tags int vid", &nebula.Value{VVal: jtVertex(jtInt(100),
			jtTag("student", map[string]*nebula.Value{"grade": jtInt(3)}),
			jtTag("person", map[string]*nebula.Value{"name": jtStr("Al"), "hobby": jtNull()}))},
			`{"person.hobby":null,"person.name":"Al","student.grade":3}`, `{"type":"vertex","id":100}`},
		{"vertex no tags", &nebula.Value{VVal: jtVertex(jtStr("v"))}, `{}`, `{"type":"vertex","id":"v"}`},
		{"edge", &nebula.Value{EVal: knows},
			`{"since":2020,"w":0.5}`,
			`{"type":"edge","id":{"ranking":2,"type":5,"dst":"amy","src":"bob","name":"knows"}}`},
		{"edge no props", &nebula.Value{EVal: &nebula.Edge{Src: jtInt(1), Dst: jtInt(2), Type: -3, Name: []byte("e")}},
			`{}`, `{"type":"edge","id":{"ranking":0,"type":-3,"dst":2,"src":1,"name":"e"}}`},
		{"path", &nebula.Value{PVal: &nebula.Path{Src: bob, Steps: []*nebula.Step{
			{Dst: amy, Type: 5, Name: []byte("knows"), Ranking: 2, Props: map[string]*nebula.Value{"since": jtInt(2020)}},
			{Dst: bob, Type: -5, Name: []byte("knows"), Ranking: 2},
		}}},
			`[{"person.age":10,"person.name":"Bob"},{"since":2020},{"person.name":"Amy"},{},{"person.age":10,"person.name":"Bob"}]`,
			`[{"type":"vertex","id":"bob"},` +
				`{"type":"edge","id":{"ranking":2,"name":"knows","type":5,"dst":"amy","src":"bob"}},` +
				`{"type":"vertex","id":"amy"},` +
				`{"type":"edge","id":{"ranking":2,"name":"knows","type":-5,"dst":"bob","src":"amy"}},` +
				`{"type":"vertex","id":"bob"}]`},
		{"path no steps", &nebula.Value{PVal: &nebula.Path{Src: amy}},
			`[{"person.name":"Amy"}]`, `[{"type":"vertex","id":"amy"}]`},
		{"list", jtList(jtInt(1), jtFloat(2), jtStr("abc"), jtNull()), `[1,2,"abc",null]`, `[null,null,null,null]`},
		{"empty list", jtList(), `[]`, `[]`},
		{"list of vertices", jtList(&nebula.Value{VVal: amy}, jtList(&nebula.Value{DVal: &nebula.Date{Year: 2000, Month: 1, Day: 1}})),
			`[{"person.name":"Amy"},["2000-01-01"]]`, `[{"type":"vertex","id":"amy"},[{"type":"date"}]]`},
		{"set", jtSet(jtInt(3), jtStr("x")), `[3,"x"]`, `[null,null]`},
		{"map", jtMap(map[string]*nebula.Value{"key": jtStr("value"), "a": &nebula.Value{VVal: amy}, "n": jtInt(1)}),
			`{"a":{"person.name":"Amy"},"key":"value","n":1}`, `[{"type":"vertex","id":"amy"},null,null]`},
		{"empty map", jtMap(nil), `{}`, `[]`},
		{"dataset", &nebula.Value{GVal: &nebula.DataSet{
			ColumnNames: [][]byte{[]byte("a"), []byte("b")},
			Rows: []*nebula.Row{
				{Values: []*nebula.Value{jtInt(1), &nebula.Value{VVal: amy}}},
				{Values: []*nebula.Value{jtStr("x"), jtNull()}},
			},
		}},
			`[{"meta":[null,{"type":"vertex","id":"amy"}],"row":[1,{"person.name":"Amy"}]},{"meta":[null,null],"row":["x",null]}]`,
			`null`},
		{"geography point", &nebula.Value{GgVal: &nebula.Geography{PtVal: &nebula.Point{Coord: &nebula.Coordinate{X: 1, Y: 2.5}}}},
			`"POINT(1 2.5)"`, `null`},
		{"geography linestring", &nebula.Value{GgVal: &nebula.Geography{LsVal: &nebula.LineString{CoordList: []*nebula.Coordinate{
			{X: 0, Y: 1}, {X: -1.5, Y: 1e-7},
		}}}},
			`"LINESTRING(0 1, -1.5 1E-7)"`, `null`},
		{"geography polygon", &nebula.Value{GgVal: &nebula.Geography{PgVal: &nebula.Polygon{CoordListList: [][]*nebula.Coordinate{
			{{X: 0, Y: 0}, {X: 1, Y: 0}, {X: 1, Y: 1}, {X: 0, Y: 0}},
			{{X: 0.2, Y: 0.2}, {X: 0.3, Y: 0.2}, {X: 0.2, Y: 0.3}, {X: 0.2, Y: 0.2}},
		}}}},
			`"POLYGON((0 0, 1 0, 1 1, 0 0), (0.2 0.2, 0.3 0.2, 0.2 0.3, 0.2 0.2))"`, `null`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResponseJSON(jtCell(tc.v))
			if err != nil {
				t.Fatal(err)
			}
			if want := jtCellJSON(tc.row, tc.meta); string(got) != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestResponseJSONResponses(t *testing.T) {
	tests := []struct {
		name string
		r    *graph.ExecutionResponse
		want string
	}{
		{
			// Byte for byte what a NebulaGraph 3.x graphd answered to an
			// UPDATE, as captured by a client.
			name: "no data",
			r:    &graph.ExecutionResponse{LatencyInUs: 17951, SpaceName: []byte("topology")},
			want: `{"errors":[{"code":0}],"results":[{"spaceName":"topology","errors":{"code":0},"latencyInUs":17951}]}`,
		},
		{
			// The same capture's error answer.
			name: "error",
			r: &graph.ExecutionResponse{
				ErrorCode:   nebula.ErrorCode_E_EXECUTION_ERROR,
				LatencyInUs: 4577,
				SpaceName:   []byte("topology"),
				ErrorMsg:    []byte("Storage Error: Vertex or edge not found."),
			},
			want: `{"errors":[{"message":"Storage Error: Vertex or edge not found.","code":-1005}],` +
				`"results":[{"spaceName":"topology","errors":{"message":"Storage Error: Vertex or edge not found.","code":-1005},"latencyInUs":4577}]}`,
		},
		{
			name: "error without space",
			r: &graph.ExecutionResponse{
				ErrorCode:   nebula.ErrorCode_E_SEMANTIC_ERROR,
				LatencyInUs: 12,
				ErrorMsg:    []byte("SemanticError: `invalidTag': Unknown tag"),
			},
			want: `{"errors":[{"message":"SemanticError: ` + "`invalidTag'" + `: Unknown tag","code":-1009}],` +
				`"results":[{"errors":{"message":"SemanticError: ` + "`invalidTag'" + `: Unknown tag","code":-1009},"latencyInUs":12}]}`,
		},
		{
			// A captured graphd answer to MATCH ... RETURN n, minified.
			name: "vertex row",
			r: &graph.ExecutionResponse{
				LatencyInUs: 4761,
				SpaceName:   []byte("basketballplayer"),
				Data: &nebula.DataSet{
					ColumnNames: [][]byte{[]byte("n")},
					Rows: []*nebula.Row{{Values: []*nebula.Value{{VVal: jtVertex(jtStr("player100"),
						jtTag("player", map[string]*nebula.Value{"age": jtInt(42), "name": jtStr("Tim Duncan")}))}}}},
				},
			},
			want: `{"errors":[{"code":0}],"results":[{"spaceName":"basketballplayer","data":[{"meta":[{"type":"vertex","id":"player100"}],` +
				`"row":[{"player.age":42,"player.name":"Tim Duncan"}]}],"columns":["n"],"errors":{"code":0},"latencyInUs":4761}]}`,
		},
		{
			name: "empty data set",
			r: &graph.ExecutionResponse{
				Data: &nebula.DataSet{ColumnNames: [][]byte{[]byte("a"), []byte("b")}},
			},
			want: `{"errors":[{"code":0}],"results":[{"data":[],"columns":["a","b"],"errors":{"code":0},"latencyInUs":0}]}`,
		},
		{
			name: "no columns",
			r:    &graph.ExecutionResponse{Data: &nebula.DataSet{}},
			want: `{"errors":[{"code":0}],"results":[{"data":[],"columns":[],"errors":{"code":0},"latencyInUs":0}]}`,
		},
		{
			name: "several rows and columns",
			r: &graph.ExecutionResponse{
				LatencyInUs: 1,
				Data: &nebula.DataSet{
					ColumnNames: [][]byte{[]byte("x"), []byte(`q"`)},
					Rows: []*nebula.Row{
						{Values: []*nebula.Value{jtInt(1), jtStr("a")}},
						{Values: []*nebula.Value{jtNull(), &nebula.Value{DVal: &nebula.Date{Year: 2024, Month: 2, Day: 29}}}},
					},
				},
			},
			want: `{"errors":[{"code":0}],"results":[{"data":[{"meta":[null,null],"row":[1,"a"]},` +
				`{"meta":[null,{"type":"date"}],"row":[null,"2024-02-29"]}],"columns":["x","q\""],"errors":{"code":0},"latencyInUs":1}]}`,
		},
		{
			name: "comment and empty message",
			r: &graph.ExecutionResponse{
				LatencyInUs: 3,
				SpaceName:   []byte(""),
				ErrorMsg:    []byte{},
				Comment:     []byte("note"),
			},
			want: `{"errors":[{"message":"","code":0}],"results":[{"comment":"note","spaceName":"","errors":{"message":"","code":0},"latencyInUs":3}]}`,
		},
		{
			name: "plan description",
			r: &graph.ExecutionResponse{
				LatencyInUs: 9,
				PlanDesc: &graph.PlanDescription{
					PlanNodeDescs: []*graph.PlanNodeDescription{
						{
							Name: []byte("Project"), Id: 2, OutputVar: []byte("__Project_2"),
							Description:  []*graph.Pair{{Key: []byte("columns"), Value: []byte(`["a"]`)}},
							Profiles:     []*graph.ProfilingStats{{Rows: 1, ExecDurationInUs: 5, TotalDurationInUs: 6, OtherStats: map[string][]byte{"z": []byte("1"), "a": []byte("2")}}},
							BranchInfo:   &graph.PlanNodeBranchInfo{IsDoBranch: true, ConditionNodeID: 4},
							Dependencies: []int64{1},
						},
						{Name: []byte("Start"), Id: 1, OutputVar: []byte("__Start_1")},
					},
					NodeIndexMap:     map[int64]int64{2: 0, 10: 2, 1: 1},
					Format:           []byte("row"),
					OptimizeTimeInUs: 11,
				},
			},
			want: `{"errors":[{"code":0}],"results":[{"planDesc":{"optimize_time_in_us":11,"format":"row","nodeIndexMap":{"1":1,"2":0,"10":2},` +
				`"planNodeDescs":[{"dependencies":[1],"branchInfo":{"conditionNodeId":4,"isDoBranch":true},` +
				`"profiles":[{"otherStats":{"a":"2","z":"1"},"totalDurationInUs":6,"execDurationInUs":5,"rows":1}],` +
				`"description":[{"columns":"[\"a\"]"}],"outputVar":"__Project_2","id":2,"name":"Project"},` +
				`{"outputVar":"__Start_1","id":1,"name":"Start"}]},"errors":{"code":0},"latencyInUs":9}]}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResponseJSON(tc.r)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if !json.Valid(got) {
				t.Errorf("not valid JSON: %s", got)
			}
		})
	}
}

func TestResponseJSONNonFinite(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got, err := ResponseJSON(jtCell(jtList(jtFloat(f)))); err == nil {
			t.Errorf("%v: no error, got %s", f, got)
		}
	}
	// WKT coordinates go through folly::to<std::string>, which does not fail.
	g := &nebula.Value{GgVal: &nebula.Geography{PtVal: &nebula.Point{Coord: &nebula.Coordinate{X: math.NaN(), Y: math.Inf(-1)}}}}
	got, err := ResponseJSON(jtCell(g))
	if err != nil {
		t.Fatal(err)
	}
	if want := jtCellJSON(`"POINT(NaN -Infinity)"`, `null`); string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if _, err := ResponseJSON(nil); err == nil {
		t.Error("nil response: no error")
	}
}

func TestAppendShortestDouble(t *testing.T) {
	tests := []struct {
		f    float64
		want string
	}{
		{0, "0"},
		{0.1, "0.1"},
		{-2.5, "-2.5"},
		{100, "100"},
		{123456789.125, "123456789.125"},
		{1.0 / 3, "0.3333333333333333"},
		{1e-6, "0.000001"},
		{1.234e-6, "0.000001234"},
		{9.99e-7, "9.99E-7"},
		{1e15, "1000000000000000"},
		{1.5e20, "150000000000000000000"},
		{1.5e21, "1.5E21"},
		{-1e100, "-1E100"},
		{2.2250738585072014e-308, "2.2250738585072014E-308"},
	}
	for _, tc := range tests {
		if got := string(appendShortestDouble(nil, tc.f)); got != tc.want {
			t.Errorf("%v: got %s, want %s", tc.f, got, tc.want)
		}
	}
}
