package metad

import (
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/proto/metapb"
)

// reZone returns the write that gives an already registered host the zone
// it registers with now, or nothing if the zone is unchanged. A host's
// zone is a label for placement (BALANCE DATA spreads a partition's
// replicas over zones), so a restarted storaged may move to another zone.
func reZone(r *txnReader, store uint64, zone string) ([]clientv3.Op, error) {
	kv, err := r.get(hostKey(store))
	if err != nil || kv == nil {
		return nil, err
	}
	var host metapb.HostInfo
	if err := proto.Unmarshal(kv.Value, &host); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", kv.Key, err)
	}
	if host.Zone == zone {
		return nil, nil
	}
	host.Zone = zone
	val, err := marshal(&host)
	if err != nil {
		return nil, err
	}
	return []clientv3.Op{clientv3.OpPut(hostKey(store), val)}, nil
}
