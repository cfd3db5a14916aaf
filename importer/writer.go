package importer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/storagepb"
	storageclient "github.com/novagraph/novagraph/storaged/client"
)

// A round is one batch of source rows on its way to storage: the rows'
// writes grouped by partition, one request per partition, all sent at
// once. A round is the unit of progress: it completes when every one of
// its writes was applied or its row was written to the failed-rows file,
// and the checkpoint only ever covers completed rounds.
type round struct {
	src   *sourceRun
	start int64 // source index of the round's first row
	n     int64 // rows the round covers (read, including those skipped by filters)
	other int64 // of them, rows left to other shards

	rows   []keptRow // rows that produced writes, for failed-rows reporting
	writes []write
	owner  []int32 // owner[i]: index in rows of writes[i]

	mu     sync.Mutex
	failed map[int32]string // row → reason (first one)
}

// keptRow is a copy of a source row: the source reuses its buffers.
type keptRow struct {
	file   string
	line   int64
	fields []string
	// raw: fields is the one text of a record that did not parse, to be
	// written back as it was read (see source.Record.Fields).
	raw bool
}

func keep(file string, line int64, fields []string) keptRow {
	n := 0
	for _, f := range fields {
		n += len(f)
	}
	var b strings.Builder
	b.Grow(n)
	for _, f := range fields {
		b.WriteString(f)
	}
	all := b.String()
	out := make([]string, len(fields))
	off := 0
	for i, f := range fields {
		out[i] = all[off : off+len(f)]
		off += len(f)
	}
	return keptRow{file: file, line: line, fields: out}
}

func (r *round) fail(row int32, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failed == nil {
		r.failed = map[int32]string{}
	}
	if _, ok := r.failed[row]; !ok {
		r.failed[row] = reason
	}
}

// writeKind is what request a write goes into.
type writeKind uint8

const (
	kindAddVertex writeKind = iota
	kindAddEdge
	kindDeleteTag
	kindDeleteEdge
)

func (w *write) kind() writeKind {
	switch {
	case w.edge != nil && w.delete:
		return kindDeleteEdge
	case w.edge != nil:
		return kindAddEdge
	case w.delete:
		return kindDeleteTag
	}
	return kindAddVertex
}

type bucketKey struct {
	kind writeKind
	part int32
	tag  int32 // DELETE TAG: the tag
}

// sender writes rounds to the partition leaders.
type sender struct {
	storage *storageclient.Client
	space   int32
	version func() int64 // catalog version the requests name
	retries int
	backoff time.Duration // first retry's wait; doubles, at most 10 s
	stats   *Stats
}

// send writes a round, retrying and bisecting as needed; it returns only
// ctx's error: every other failure is recorded against the round's rows.
func (s *sender) send(ctx context.Context, r *round) error {
	buckets := map[bucketKey][]int32{}
	for i := range r.writes {
		w := &r.writes[i]
		k := bucketKey{kind: w.kind(), part: w.part}
		if k.kind == kindDeleteTag {
			k.tag = w.delTag
		}
		buckets[k] = append(buckets[k], int32(i))
	}
	var wg sync.WaitGroup
	for k, idx := range buckets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.sendBucket(ctx, r, k, idx)
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// sendBucket sends one partition's writes of one kind. A failure that
// names the data (a row storaged refuses) is narrowed down by halving the
// batch until the refused rows are alone; any other failure is retried
// with backoff, then charged to every row of the batch.
func (s *sender) sendBucket(ctx context.Context, r *round, k bucketKey, idx []int32) {
	var err error
	wait := s.backoff
	for attempt := 0; ; attempt++ {
		err = s.call(ctx, r, k, idx)
		if err == nil {
			s.stats.count(k.kind, len(idx))
			return
		}
		if ctx.Err() != nil {
			return
		}
		if isDataError(err) {
			if len(idx) == 1 {
				r.fail(r.owner[idx[0]], err.Error())
				return
			}
			half := len(idx) / 2
			s.sendBucket(ctx, r, k, idx[:half])
			s.sendBucket(ctx, r, k, idx[half:])
			return
		}
		if attempt >= s.retries {
			break
		}
		s.stats.Retries.Add(1)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, 10*time.Second)
	}
	reason := fmt.Sprintf("partition %d: gave up after %d attempts: %v", k.part, s.retries+1, err)
	for _, i := range idx {
		r.fail(r.owner[i], reason)
	}
}

func (s *sender) call(ctx context.Context, r *round, k bucketKey, idx []int32) error {
	s.stats.Requests.Add(1)
	version := s.version()
	switch k.kind {
	case kindAddVertex:
		vs := make([]*storagepb.NewVertex, len(idx))
		for j, i := range idx {
			vs[j] = r.writes[i].vertex
		}
		return s.storage.AddVertices(ctx, &storagepb.AddVerticesReq{SpaceId: s.space, CatalogVersion: version,
			Parts: map[int32]*storagepb.VertexList{k.part: {Vertices: vs}}})
	case kindAddEdge:
		es := make([]*storagepb.NewEdge, len(idx))
		for j, i := range idx {
			es[j] = r.writes[i].edge
		}
		// No waiting for the in-edges per request: the resolver mirrors
		// many requests' edges at once, and Run flushes them at the end.
		return s.storage.AddEdges(ctx, &storagepb.AddEdgesReq{SpaceId: s.space, CatalogVersion: version, NoMirrorWait: true,
			Parts: map[int32]*storagepb.EdgeList{k.part: {Edges: es}}})
	case kindDeleteTag:
		vids := make([][]byte, len(idx))
		for j, i := range idx {
			vids[j] = r.writes[i].vertex.Vid
		}
		return s.storage.DeleteTags(ctx, &storagepb.DeleteTagsReq{SpaceId: s.space, CatalogVersion: version, TagIds: []int32{k.tag},
			Parts: map[int32]*storagepb.VidList{k.part: {Vids: vids}}})
	default:
		keys := make([]*storagepb.EdgeKey, len(idx))
		for j, i := range idx {
			e := r.writes[i].edge
			keys[j] = &storagepb.EdgeKey{Src: e.Src, EdgeType: e.EdgeType, Rank: e.Rank, Dst: e.Dst}
		}
		return s.storage.DeleteEdges(ctx, &storagepb.DeleteEdgesReq{SpaceId: s.space, CatalogVersion: version,
			Parts: map[int32]*storagepb.EdgeKeyList{k.part: {Keys: keys}}})
	}
}

// isDataError says whether storaged refused the request for what it
// carries (a row that does not fit the schema, a vid of the wrong
// length), as opposed to where or when it was sent.
func isDataError(err error) bool {
	var pe *storageclient.PartError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case commonpb.ErrorCode_E_INVALID_ARGUMENT, commonpb.ErrorCode_E_TAG_NOT_FOUND,
		commonpb.ErrorCode_E_EDGE_NOT_FOUND, commonpb.ErrorCode_E_PROP_NOT_FOUND:
		return true
	}
	return false
}
