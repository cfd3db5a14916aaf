package metad

import (
	"context"
	"fmt"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

// Host management, as in NebulaGraph 3.x (ADD HOSTS, DROP HOSTS):
//
//   - host_addrs/<host:port> reserves a store id for an address, for good:
//     RegisterHost or ADD HOSTS creates it, nothing deletes it, so a host
//     dropped and added again keeps its raft node id.
//   - hosts/<store_id> exists while the host is *added*, i.e. a member of
//     the cluster. Only added hosts are in the catalog (SHOW HOSTS), get
//     partitions of new spaces or replicas (UpdatePartReplicas), and may
//     heartbeat (so only they are ever online).
//
// A storaged that registers is added at once, unless metad runs with
// Config.RequireAddHosts (--require-add-hosts): its address then only gets
// a store id, its heartbeats are refused until ADD HOSTS names it, and it
// serves nothing meanwhile, as NebulaGraph 3.x does. An added host that
// never registered is simply OFFLINE. DROP HOSTS refuses a host that still
// holds a replica or learner of any partition; it deletes the host's
// hosts, alive and leaders keys, so a storaged still running there has its
// heartbeats refused (and without --require-add-hosts is added again when
// it restarts and registers).

func (svc *service) AddHosts(ctx context.Context, req *metapb.AddHostsReq) (*metapb.AddHostsResp, error) {
	ver, err := svc.s.addHosts(ctx, req.GetHosts())
	return &metapb.AddHostsResp{Status: svc.s.toStatus("AddHosts", err), Version: ver}, nil
}

func (svc *service) DropHosts(ctx context.Context, req *metapb.DropHostsReq) (*metapb.DropHostsResp, error) {
	ver, err := svc.s.dropHosts(ctx, req.GetHosts())
	return &metapb.DropHostsResp{Status: svc.s.toStatus("DropHosts", err), Version: ver}, nil
}

// hostPort validates a host address and returns it as "host:port".
func hostPort(addr *commonpb.HostAddr) (string, error) {
	if addr.GetHost() == "" || addr.GetPort() < 1 || addr.GetPort() > 65535 {
		return "", errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "host address %s:%d is not a host and a port in [1, 65535]", addr.GetHost(), addr.GetPort())
	}
	return net.JoinHostPort(addr.Host, strconv.Itoa(int(addr.Port))), nil
}

// hostList validates the addresses of an ADD or DROP HOSTS and returns
// them as "host:port", refusing an empty list and duplicates.
func hostList(what string, addrs []*commonpb.HostAddr) ([]string, error) {
	if len(addrs) == 0 {
		return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s needs at least one host", what)
	}
	out := make([]string, 0, len(addrs))
	for _, a := range addrs {
		hp, err := hostPort(a)
		if err != nil {
			return nil, err
		}
		if slices.Contains(out, hp) {
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s names host %s twice", what, hp)
		}
		out = append(out, hp)
	}
	return out, nil
}

// readStoreID reads the store id reserved for an address in a transaction;
// 0 and a nil kv if there is none.
func readStoreID(r *txnReader, hp string) (uint64, *mvccpb.KeyValue, error) {
	kv, err := r.get(hostAddrKey(hp))
	if err != nil || kv == nil {
		return 0, nil, err
	}
	id, err := strconv.ParseUint(string(kv.Value), 10, 64)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: malformed store id %q", kv.Key, kv.Value)
	}
	return id, kv, nil
}

// reserveStoreID returns the store id of an address, with the ops that
// reserve a new one if it has none yet.
func reserveStoreID(r *txnReader, hp string) (uint64, *mvccpb.KeyValue, []clientv3.Op, error) {
	id, kv, err := readStoreID(r, hp)
	if err != nil || kv != nil {
		return id, kv, nil, err
	}
	next, counterOp, err := nextID(r, keyStoreIDCounter, math.MaxInt64, "store")
	if err != nil {
		return 0, nil, nil, err
	}
	return uint64(next), nil, []clientv3.Op{counterOp, clientv3.OpPut(hostAddrKey(hp), strconv.FormatInt(next, 10))}, nil
}

// addHostOp is the op that adds store id at addr (hostKey's HostInfo).
func addHostOp(id uint64, addr *commonpb.HostAddr, zone string) (clientv3.Op, error) {
	val, err := marshal(&metapb.HostInfo{StoreId: id, Addr: &commonpb.HostAddr{Host: addr.Host, Port: addr.Port}, Zone: zone})
	if err != nil {
		return clientv3.Op{}, err
	}
	return clientv3.OpPut(hostKey(id), val), nil
}

// addHosts adds every host or none. A host already added fails the whole
// request with E_EXISTED, as in NebulaGraph.
func (s *Server) addHosts(ctx context.Context, addrs []*commonpb.HostAddr) (int64, error) {
	hps, err := hostList("ADD HOSTS", addrs)
	if err != nil {
		return 0, err
	}
	var ids []uint64
	rev, err := s.commit(ctx, func(r *txnReader) ([]clientv3.Op, error) {
		ids = ids[:0]
		counterKV, err := r.get(keyStoreIDCounter)
		if err != nil {
			return nil, err
		}
		last, err := parseCounter(value(counterKV))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", keyStoreIDCounter, err)
		}
		counter := last
		var ops []clientv3.Op
		var existed []string
		for i, hp := range hps {
			id, kv, err := readStoreID(r, hp)
			if err != nil {
				return nil, err
			}
			if kv == nil {
				if counter == math.MaxInt64 {
					return nil, errorf(commonpb.ErrorCode_E_UNKNOWN, "store ids are exhausted (last %d)", counter)
				}
				counter++
				id = uint64(counter)
				ops = append(ops, clientv3.OpPut(hostAddrKey(hp), strconv.FormatUint(id, 10)))
			} else {
				hostKV, err := r.get(hostKey(id))
				if err != nil {
					return nil, err
				}
				if hostKV != nil {
					existed = append(existed, hp)
					continue
				}
			}
			add, err := addHostOp(id, addrs[i], "")
			if err != nil {
				return nil, err
			}
			ops = append(ops, add)
			ids = append(ids, id)
		}
		if len(existed) > 0 {
			return nil, errorf(commonpb.ErrorCode_E_EXISTED, "host %s is already added", strings.Join(existed, ", "))
		}
		if counter != last {
			ops = append(ops, clientv3.OpPut(keyStoreIDCounter, itoa(counter)))
		}
		return ops, nil
	})
	if err != nil {
		return 0, err
	}
	s.log.Info("hosts added", "hosts", hps, "store_ids", ids, "version", rev)
	return rev, nil
}

// dropHosts drops every host or none: a host that is not added, or still
// holds a partition replica or learner, fails the whole request.
func (s *Server) dropHosts(ctx context.Context, addrs []*commonpb.HostAddr) (int64, error) {
	hps, err := hostList("DROP HOSTS", addrs)
	if err != nil {
		return 0, err
	}
	var ids []uint64
	rev, err := s.commit(ctx, func(r *txnReader) ([]clientv3.Op, error) {
		ids = ids[:0]
		var missing []string
		byID := map[uint64]string{}
		for _, hp := range hps {
			id, kv, err := readStoreID(r, hp)
			if err != nil {
				return nil, err
			}
			var hostKV *mvccpb.KeyValue
			if kv != nil {
				if hostKV, err = r.get(hostKey(id)); err != nil {
					return nil, err
				}
			}
			if hostKV == nil {
				missing = append(missing, hp)
				continue
			}
			ids = append(ids, id)
			byID[id] = hp
		}
		if len(missing) > 0 {
			return nil, errorf(commonpb.ErrorCode_E_NOT_FOUND, "host %s is not added", strings.Join(missing, ", "))
		}
		// Any change to placement (a new space, a replica moved) makes
		// this list conflict, so no replica can land on a host between
		// this check and the drop; the reverse race is caught by
		// createSpace and updatePartReplicas reading the host key.
		partKVs, err := r.list(prefixParts)
		if err != nil {
			return nil, err
		}
		spaceNames, err := spaceNamesByID(r)
		if err != nil {
			return nil, err
		}
		held := map[uint64][]string{} // store → "space g: parts 1, 2"
		for _, kv := range partKVs {
			space, err := idFromKey(string(kv.Key), prefixParts)
			if err != nil {
				return nil, err
			}
			var parts metapb.SpaceParts
			if err := proto.Unmarshal(kv.Value, &parts); err != nil {
				return nil, fmt.Errorf("decoding %s: %w", kv.Key, err)
			}
			onStore := map[uint64][]string{}
			for _, p := range parts.Parts {
				for _, store := range append(slices.Clone(p.Replicas), p.Learners...) {
					if _, dropping := byID[store]; dropping {
						onStore[store] = append(onStore[store], strconv.Itoa(int(p.PartId)))
					}
				}
			}
			name := spaceNames[int32(space)]
			if name == "" {
				name = "#" + strconv.FormatUint(space, 10)
			}
			for store, ps := range onStore {
				held[store] = append(held[store], fmt.Sprintf("space %s: part %s", name, strings.Join(ps, ", ")))
			}
		}
		if len(held) > 0 {
			var msgs []string
			for _, id := range ids {
				if h := held[id]; len(h) > 0 {
					slices.Sort(h)
					msgs = append(msgs, fmt.Sprintf("host %s still holds partition replicas (%s)", byID[id], strings.Join(h, "; ")))
				}
			}
			return nil, errorf(commonpb.ErrorCode_E_INVALID_ARGUMENT, "%s; move them to other hosts or drop their spaces first", strings.Join(msgs, "; "))
		}
		var ops []clientv3.Op
		for _, id := range ids {
			// The alive and leaders keys go too, so the host is gone from
			// the catalog at once rather than when its lease runs out.
			ops = append(ops, clientv3.OpDelete(hostKey(id)), clientv3.OpDelete(aliveKey(id)), clientv3.OpDelete(leadersKey(id)))
		}
		return ops, nil
	})
	if err != nil {
		return 0, err
	}
	s.hbMu.Lock()
	for _, id := range ids {
		delete(s.lastHeartbeat, id)
	}
	s.hbMu.Unlock()
	s.log.Info("hosts dropped", "hosts", hps, "store_ids", ids, "version", rev)
	return rev, nil
}

// spaceNamesByID reads the name of every space, for messages. Spaces
// themselves are not asserted: a space created meanwhile changes the parts
// prefix the caller lists, and a name is only cosmetic.
func spaceNamesByID(r *txnReader) (map[int32]string, error) {
	resp, err := r.read(prefixSpaces, clientv3.WithPrefix())
	if err != nil {
		return nil, err
	}
	names := map[int32]string{}
	for _, kv := range resp.Kvs {
		var d metapb.SpaceDesc
		if proto.Unmarshal(kv.Value, &d) == nil {
			names[d.SpaceId] = d.Name
		}
	}
	return names, nil
}

// notAdded is the error of a heartbeat from a store that is not added: it
// was dropped, or metad requires ADD HOSTS and nobody added it yet.
func (s *Server) notAdded(r *txnReader, store uint64, addr *commonpb.HostAddr) error {
	if hp, err := hostPort(addr); err == nil {
		if id, kv, err := readStoreID(r, hp); err == nil && kv != nil && id == store {
			return errorf(commonpb.ErrorCode_E_NOT_FOUND, "host %s (store %d) is not added to the cluster; run ADD HOSTS %q:%d",
				hp, store, addr.Host, addr.Port)
		}
	}
	return errorf(commonpb.ErrorCode_E_NOT_FOUND, "store %d is not registered; call RegisterHost first", store)
}
