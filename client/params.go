package client

import (
	"fmt"
	"math"
	"reflect"
	"sort"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/temporal"
)

// ParamValue converts a Go value to the wire value of a query parameter.
// It takes what Row.Value returns — nil (NULL), bool, int64, float64,
// string, temporal.Date, temporal.Time, temporal.DateTime,
// temporal.Duration, and []any and Map of those — and also the other
// integer and float types, []byte (as a string), any slice or array of
// supported values (as a list), any map with string keys (as a map), and a
// *commonpb.Value, which is passed as is. Vertices, edges and paths cannot
// be parameters.
func ParamValue(v any) (*commonpb.Value, error) {
	switch v := v.(type) {
	case nil:
		return &commonpb.Value{V: &commonpb.Value_Null{Null: true}}, nil
	case *commonpb.Value:
		if v == nil {
			return &commonpb.Value{V: &commonpb.Value_Null{Null: true}}, nil
		}
		return v, nil
	case bool:
		return &commonpb.Value{V: &commonpb.Value_BoolVal{BoolVal: v}}, nil
	case string:
		return &commonpb.Value{V: &commonpb.Value_StrVal{StrVal: []byte(v)}}, nil
	case []byte:
		return &commonpb.Value{V: &commonpb.Value_StrVal{StrVal: v}}, nil
	case temporal.Date:
		return &commonpb.Value{V: &commonpb.Value_DateVal{DateVal: int32(v)}}, nil
	case temporal.Time:
		return &commonpb.Value{V: &commonpb.Value_TimeVal{TimeVal: int64(v)}}, nil
	case temporal.DateTime:
		return &commonpb.Value{V: &commonpb.Value_DatetimeVal{DatetimeVal: int64(v)}}, nil
	case temporal.Duration:
		return &commonpb.Value{V: &commonpb.Value_DurationVal{DurationVal: &commonpb.Duration{Months: v.Months, Micros: v.Micros}}}, nil
	case []any:
		return paramList(len(v), func(i int) any { return v[i] })
	case Map:
		return paramMap(v)
	case map[string]any:
		return paramMap(v)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &commonpb.Value{V: &commonpb.Value_IntVal{IntVal: rv.Int()}}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := rv.Uint()
		if u > math.MaxInt64 {
			return nil, fmt.Errorf("%w: %d does not fit an int64", ErrType, u)
		}
		return &commonpb.Value{V: &commonpb.Value_IntVal{IntVal: int64(u)}}, nil
	case reflect.Float32, reflect.Float64:
		return &commonpb.Value{V: &commonpb.Value_FloatVal{FloatVal: rv.Float()}}, nil
	case reflect.Bool:
		return &commonpb.Value{V: &commonpb.Value_BoolVal{BoolVal: rv.Bool()}}, nil
	case reflect.String:
		return &commonpb.Value{V: &commonpb.Value_StrVal{StrVal: []byte(rv.String())}}, nil
	case reflect.Slice, reflect.Array:
		return paramList(rv.Len(), func(i int) any { return rv.Index(i).Interface() })
	case reflect.Map:
		if rv.Type().Key().Kind() == reflect.String {
			m := make(map[string]any, rv.Len())
			for it := rv.MapRange(); it.Next(); {
				m[it.Key().String()] = it.Value().Interface()
			}
			return paramMap(m)
		}
	}
	return nil, fmt.Errorf("%w: %T cannot be a query parameter", ErrType, v)
}

func paramList(n int, item func(int) any) (*commonpb.Value, error) {
	list := &commonpb.ValueList{Values: make([]*commonpb.Value, n)}
	for i := range n {
		v, err := ParamValue(item(i))
		if err != nil {
			return nil, fmt.Errorf("list item %d: %w", i, err)
		}
		list.Values[i] = v
	}
	return &commonpb.Value{V: &commonpb.Value_ListVal{ListVal: list}}, nil
}

// paramMap converts a map, its entries sorted by key as the wire form
// wants them (common.proto's MapVal).
func paramMap(m map[string]any) (*commonpb.Value, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := &commonpb.MapVal{Entries: make([]*commonpb.MapEntry, len(keys))}
	for i, k := range keys {
		v, err := ParamValue(m[k])
		if err != nil {
			return nil, fmt.Errorf("map key %q: %w", k, err)
		}
		out.Entries[i] = &commonpb.MapEntry{Key: []byte(k), Value: v}
	}
	return &commonpb.Value{V: &commonpb.Value_MapVal{MapVal: out}}, nil
}

// paramValues converts ExecuteWithParams' parameters, naming the first
// one that does not convert (in name order, so the error is stable).
func paramValues(params map[string]any) (map[string]*commonpb.Value, error) {
	if len(params) == 0 {
		return nil, nil
	}
	names := make([]string, 0, len(params))
	for name := range params {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make(map[string]*commonpb.Value, len(params))
	for _, name := range names {
		v, err := ParamValue(params[name])
		if err != nil {
			return nil, fmt.Errorf("client: query parameter $%s: %w", name, err)
		}
		out[name] = v
	}
	return out, nil
}
