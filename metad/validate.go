package metad

import (
	"fmt"
	"slices"
	"unicode"

	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
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
)

func validateName(what, name string) error {
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

// validateSpace checks a CreateSpace request and returns the description to
// store (vid_len filled in for INT64; space_id left for the caller).
func validateSpace(d *metapb.SpaceDesc) (*metapb.SpaceDesc, error) {
	if d == nil {
		return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "space description is missing")
	}
	if err := validateName("space", d.Name); err != nil {
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

// validateColumns checks a schema's columns and returns them normalized: a
// NULL default is always an explicit Value_Null, and integer defaults of
// DOUBLE and TIMESTAMP columns are converted, so that readers of the catalog
// never coerce defaults themselves.
func validateColumns(schema string, cols []*metapb.ColumnDef) ([]*metapb.ColumnDef, error) {
	seen := make(map[string]bool, len(cols))
	out := make([]*metapb.ColumnDef, 0, len(cols))
	for i, c := range cols {
		if c == nil {
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: column %d is missing", schema, i)
		}
		if err := validateName(fmt.Sprintf("%s: column %d", schema, i), c.Name); err != nil {
			return nil, err
		}
		if seen[c.Name] {
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s: column %q is defined twice", schema, c.Name)
		}
		seen[c.Name] = true
		where := fmt.Sprintf("%s: column %q", schema, c.Name)
		switch c.Type {
		case metapb.PropType_INT64, metapb.PropType_DOUBLE, metapb.PropType_BOOL,
			metapb.PropType_STRING, metapb.PropType_TIMESTAMP:
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
		nc := proto.Clone(c).(*metapb.ColumnDef)
		if c.DefaultValue != nil {
			def, err := normalizeDefault(where, nc)
			if err != nil {
				return nil, err
			}
			nc.DefaultValue = def
		}
		out = append(out, nc)
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
	case *commonpb.Value_ListVal:
		return nil, mismatch("list")
	default:
		return nil, mismatch(fmt.Sprintf("%T", v))
	}
	return c.DefaultValue, nil
}

// placeParts assigns replicaFactor replicas to each of partNum partitions
// over hosts (sorted store ids, at least replicaFactor of them). Partition p
// starts at host (p-1) mod n and takes the next replicaFactor hosts
// cyclically, so replicas are distinct within a partition, every host
// carries partNum*replicaFactor/n replicas (±1), and the first replicas, the
// natural initial leaders, rotate over the hosts too.
func placeParts(partNum, replicaFactor int32, hosts []uint64) []*metapb.PartAlloc {
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
