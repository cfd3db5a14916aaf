package metad

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/proto/metapb"
)

// view is the catalog at one etcd revision plus the indexes the RPC handlers
// need. A view is immutable once published; a newer one replaces it and
// closes its next channel, which is how WatchCatalog streams and
// read-your-writes waits learn that the catalog moved.
type view struct {
	cat    *metapb.Catalog
	spaces map[int32]*metapb.SpaceDesc
	online int // hosts online, for the metric
	next   chan struct{}
}

func (v *view) version() int64 { return v.cat.GetVersion() }

// entry is one catalog key with its decoded value (nil for keys whose value
// carries no catalog data, such as alive keys and the name indexes, or is
// not protobuf, such as roles).
type entry struct {
	kv   *mvccpb.KeyValue
	msg  proto.Message
	role metapb.RoleType // roles keys only
}

// decodeEntry decodes kv by the prefix of its key.
func decodeEntry(kv *mvccpb.KeyValue) (entry, error) {
	key := string(kv.Key)
	var msg proto.Message
	switch {
	case strings.HasPrefix(key, prefixSpaces):
		msg = &metapb.SpaceDesc{}
	case strings.HasPrefix(key, prefixParts):
		msg = &metapb.SpaceParts{}
	case strings.HasPrefix(key, prefixTags):
		msg = &metapb.TagDesc{}
	case strings.HasPrefix(key, prefixEdges):
		msg = &metapb.EdgeDesc{}
	case strings.HasPrefix(key, prefixIndexes):
		msg = &metapb.IndexDesc{}
	case strings.HasPrefix(key, prefixHosts):
		msg = &metapb.HostInfo{}
	case strings.HasPrefix(key, prefixLeaders):
		msg = &metapb.HeartbeatReq{}
	case strings.HasPrefix(key, prefixUsers):
		msg = &metapb.UserRecord{}
	case strings.HasPrefix(key, prefixRoles):
		if _, _, err := parseRoleKey(key); err != nil {
			return entry{}, err
		}
		role, err := parseRole(kv.Value)
		if err != nil {
			return entry{}, fmt.Errorf("%s: %w", key, err)
		}
		return entry{kv: kv, role: role}, nil
	case strings.HasPrefix(key, prefixAlive):
		if _, err := idFromKey(key, prefixAlive); err != nil {
			return entry{}, err
		}
		return entry{kv: kv}, nil
	default:
		return entry{kv: kv}, nil
	}
	if err := proto.Unmarshal(kv.Value, msg); err != nil {
		return entry{}, fmt.Errorf("decoding %s: %w", key, err)
	}
	return entry{kv: kv, msg: msg}, nil
}

// buildView assembles the Catalog at revision rev from every catalog key. It
// sorts everything so that equal catalogs marshal identically.
func buildView(rev int64, entries map[string]entry) *view {
	v := &view{
		cat: &metapb.Catalog{
			Version: rev,
			Parts:   map[int32]*metapb.SpaceParts{},
		},
		spaces: map[int32]*metapb.SpaceDesc{},
		next:   make(chan struct{}),
	}
	alive := map[uint64]bool{}
	var reports []*metapb.HeartbeatReq
	users := map[string]*metapb.UserInfo{}
	var roles []entry
	for key, e := range entries {
		switch m := e.msg.(type) {
		case *metapb.SpaceDesc:
			v.cat.Spaces = append(v.cat.Spaces, m)
			v.spaces[m.SpaceId] = m
		case *metapb.SpaceParts:
			// The space id is in the key only; SpaceParts does not repeat it.
			id, err := idFromKey(key, prefixParts)
			if err == nil {
				v.cat.Parts[int32(id)] = m
			}
		case *metapb.TagDesc:
			v.cat.Tags = append(v.cat.Tags, m)
		case *metapb.EdgeDesc:
			v.cat.Edges = append(v.cat.Edges, m)
		case *metapb.IndexDesc:
			v.cat.Indexes = append(v.cat.Indexes, m)
		case *metapb.HostInfo:
			h := &metapb.HostInfo{StoreId: m.StoreId, Addr: m.Addr, Zone: m.Zone}
			v.cat.Hosts = append(v.cat.Hosts, h)
		case *metapb.HeartbeatReq:
			reports = append(reports, m)
		case *metapb.UserRecord:
			// The hash stays here: UserInfo has none. The create revision
			// tells a user from an earlier one of the same name.
			name := strings.TrimPrefix(key, prefixUsers)
			u := &metapb.UserInfo{Name: name, Roles: map[int32]metapb.RoleType{}, CreateVersion: e.kv.CreateRevision}
			users[name] = u
			v.cat.Users = append(v.cat.Users, u)
		case nil:
			switch {
			case strings.HasPrefix(key, prefixAlive):
				id, _ := idFromKey(key, prefixAlive) // validated by decodeEntry
				alive[id] = true
			case strings.HasPrefix(key, prefixRoles):
				roles = append(roles, e)
			}
		}
	}
	for _, e := range roles {
		space, name, _ := parseRoleKey(string(e.kv.Key)) // validated by decodeEntry
		// A role outlives neither its user nor its space (both drops
		// delete it in the same transaction); skip strays all the same.
		if u, ok := users[name]; ok && v.spaces[space] != nil {
			u.Roles[space] = e.role
		}
	}
	for _, h := range v.cat.Hosts {
		h.Online = alive[h.StoreId]
		if h.Online {
			v.online++
		}
	}
	v.cat.Leaders = mergeLeaders(reports, v.spaces)
	slices.SortFunc(v.cat.Spaces, func(a, b *metapb.SpaceDesc) int { return cmp.Compare(a.SpaceId, b.SpaceId) })
	slices.SortFunc(v.cat.Tags, func(a, b *metapb.TagDesc) int {
		return cmp.Or(cmp.Compare(a.SpaceId, b.SpaceId), cmp.Compare(a.TagId, b.TagId))
	})
	slices.SortFunc(v.cat.Edges, func(a, b *metapb.EdgeDesc) int {
		return cmp.Or(cmp.Compare(a.SpaceId, b.SpaceId), cmp.Compare(a.EdgeType, b.EdgeType))
	})
	slices.SortFunc(v.cat.Indexes, func(a, b *metapb.IndexDesc) int {
		return cmp.Or(cmp.Compare(a.SpaceId, b.SpaceId), cmp.Compare(a.IndexId, b.IndexId))
	})
	slices.SortFunc(v.cat.Hosts, func(a, b *metapb.HostInfo) int { return cmp.Compare(a.StoreId, b.StoreId) })
	slices.SortFunc(v.cat.Users, func(a, b *metapb.UserInfo) int { return cmp.Compare(a.Name, b.Name) })
	return v
}

// mergeLeaders combines every host's last report into one leader per
// partition. Two hosts may both claim a partition for a while (the old leader
// has not heard of the new term yet, or its report is older); the higher
// Raft term is the newer truth. Equal terms cannot both be leaders in Raft, so
// a tie is broken by store id only to stay deterministic. Claims on spaces or
// partitions the catalog does not have (a space just dropped) are ignored.
func mergeLeaders(reports []*metapb.HeartbeatReq, spaces map[int32]*metapb.SpaceDesc) []*metapb.LeaderInfo {
	type partKey struct{ space, part int32 }
	best := map[partKey]*metapb.LeaderInfo{}
	for _, r := range reports {
		for _, l := range r.Leaders {
			sp, ok := spaces[l.SpaceId]
			if !ok || l.PartId < 1 || l.PartId > sp.PartitionNum {
				continue
			}
			k := partKey{l.SpaceId, l.PartId}
			cur, ok := best[k]
			if !ok || l.Term > cur.Term || (l.Term == cur.Term && l.StoreId < cur.StoreId) {
				best[k] = l
			}
		}
	}
	out := make([]*metapb.LeaderInfo, 0, len(best))
	for _, l := range best {
		out = append(out, l)
	}
	slices.SortFunc(out, compareLeaders)
	return out
}

func compareLeaders(a, b *metapb.LeaderInfo) int {
	return cmp.Or(cmp.Compare(a.SpaceId, b.SpaceId), cmp.Compare(a.PartId, b.PartId))
}

// catalogWatcher keeps the current view in step with etcd: a full read at
// start (and after a compaction), then one prefix watch. Its run goroutine is
// the only writer of entries and rev and the only publisher of views; every
// other goroutine reads the published view through current().
type catalogWatcher struct {
	cli       *clientv3.Client
	log       *slog.Logger
	onPublish func(*view)

	cur     atomic.Pointer[view]
	lastErr atomic.Pointer[error] // the watch's last failure, nil while healthy

	entries map[string]entry
	rev     int64
}

func newCatalogWatcher(cli *clientv3.Client, log *slog.Logger, onPublish func(*view)) *catalogWatcher {
	w := &catalogWatcher{cli: cli, log: log, onPublish: onPublish}
	w.cur.Store(buildView(0, nil))
	return w
}

func (w *catalogWatcher) current() *view { return w.cur.Load() }

// waitVersion blocks until the published view has version ≥ v.
func (w *catalogWatcher) waitVersion(ctx context.Context, v int64) error {
	for {
		cur := w.current()
		if cur.version() >= v {
			return nil
		}
		select {
		case <-cur.next:
		case <-ctx.Done():
			return fmt.Errorf("waiting for catalog version %d (at %d): %w", v, cur.version(), ctx.Err())
		}
	}
}

// health reports the watch's last failure, if it has not recovered since.
func (w *catalogWatcher) health() error {
	if p := w.lastErr.Load(); p != nil {
		return *p
	}
	return nil
}

func (w *catalogWatcher) publish(v *view) {
	old := w.cur.Swap(v)
	close(old.next)
	if w.onPublish != nil {
		w.onPublish(v)
	}
}

// load reads the whole catalog at the current revision and publishes it.
func (w *catalogWatcher) load(ctx context.Context) error {
	resp, err := w.cli.Get(ctx, keyRoot, clientv3.WithPrefix())
	if err != nil {
		return fmt.Errorf("reading catalog: %w", err)
	}
	entries := make(map[string]entry, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		e, err := decodeEntry(kv)
		if err != nil {
			// One corrupt value must not take the whole catalog down; the
			// key is skipped and shows up in the log.
			w.log.Error("skipping undecodable catalog key", "err", err)
			continue
		}
		entries[string(kv.Key)] = e
	}
	w.entries, w.rev = entries, resp.Header.Revision
	if w.rev > w.current().version() {
		w.publish(buildView(w.rev, w.entries))
	}
	return nil
}

// run follows etcd until ctx ends. A failed watch resumes from the last
// revision it applied; only a compaction past that revision forces a full
// reload.
func (w *catalogWatcher) run(ctx context.Context) {
	const minBackoff, maxBackoff = 50 * time.Millisecond, 2 * time.Second
	backoff := minBackoff
	reload := false
	for {
		var err error
		if reload {
			err = w.load(ctx)
		}
		if err == nil {
			reload = false
			err = w.watch(ctx, func() { backoff = minBackoff; w.lastErr.Store(nil) })
		}
		if ctx.Err() != nil {
			return
		}
		if errors.Is(err, rpctypes.ErrCompacted) {
			reload = true
		}
		w.lastErr.Store(&err)
		w.log.Warn("catalog watch interrupted; retrying", "err", err, "revision", w.rev, "backoff", backoff)
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// watch applies events from w.rev+1 on until the watch fails. progress is
// called once etcd has confirmed the watch.
func (w *catalogWatcher) watch(ctx context.Context, progress func()) error {
	// WithRequireLeader ends the watch when this member loses its leader,
	// instead of silently serving nothing from a partitioned member.
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	// WithCreatedNotify makes etcd confirm the watch, which is when it
	// counts as healthy again even if no event follows for a long time.
	for resp := range w.cli.Watch(wctx, keyRoot, clientv3.WithPrefix(), clientv3.WithRev(w.rev+1), clientv3.WithCreatedNotify()) {
		if err := resp.Err(); err != nil {
			return fmt.Errorf("watching catalog from revision %d: %w", w.rev+1, err)
		}
		if resp.Created {
			progress()
		}
		if len(resp.Events) == 0 {
			continue
		}
		for _, ev := range resp.Events {
			key := string(ev.Kv.Key)
			switch ev.Type {
			case clientv3.EventTypeDelete:
				delete(w.entries, key)
			case clientv3.EventTypePut:
				e, err := decodeEntry(ev.Kv)
				if err != nil {
					w.log.Error("skipping undecodable catalog key", "err", err)
					delete(w.entries, key)
					continue
				}
				w.entries[key] = e
			}
			// Every event of one revision arrives in the same response, so
			// after the batch the entries are the catalog at this revision.
			w.rev = ev.Kv.ModRevision
		}
		w.publish(buildView(w.rev, w.entries))
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return errors.New("catalog watch channel closed")
}
