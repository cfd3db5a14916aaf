package storaged

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"time"
)

// ReplicaStatus is one partition replica hosted here, as /parts shows it.
type ReplicaStatus struct {
	Space   int32    `json:"space"`
	Part    int32    `json:"part"`
	Store   uint64   `json:"store"`  // this store's id
	Leader  uint64   `json:"leader"` // the leader this replica knows; 0 = none
	Term    uint64   `json:"term"`
	Commit  uint64   `json:"commit"`
	Applied uint64   `json:"applied"`
	Voters  []uint64 `json:"voters"`
	// Checksum is PartChecksum's value, present only when asked for
	// (?checksum=1): it scans the whole partition.
	Checksum *uint64 `json:"checksum,omitempty"`
	// Halted is set while the replica cannot apply its next committed
	// entry on this store (a staged SST file of an ingest that no replica
	// could supply): Applied stays before Halted.Index and the store
	// retries until the cause is repaired (docs/architecture.md, Bulk
	// import).
	Halted *HaltedStatus `json:"halted,omitempty"`
	Error  string        `json:"error,omitempty"`
}

// HaltedStatus is why a replica stopped applying (raftgroup.HaltStatus).
type HaltedStatus struct {
	Index   uint64    `json:"index"` // the entry it is stopped at
	Reason  string    `json:"reason"`
	Since   time.Time `json:"since"`
	Retries int       `json:"retries"`
}

// PartsHandler serves GET /parts: every replica hosted here with its raft
// status, as JSON, sorted by space and partition. `?space=N` keeps one
// space; `?checksum=1` adds each replica's data checksum, only with
// checksums true (--enable-debug-pages): it scans every replica, so anyone
// reaching the port could keep the disks busy. The scan stops when the
// client goes away. Operators use the page to see leaders and lag per
// store; the chaos runner uses it to find partition leaders and to compare
// replicas after healing, from outside the cluster.
func (s *Server) PartsHandler(checksums bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		space := int64(-1)
		if v := q.Get("space"); v != "" {
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				http.Error(w, "space: not an integer: "+v, http.StatusBadRequest)
				return
			}
			space = n
		}
		withSum := q.Get("checksum") == "1"
		if withSum && !checksums {
			http.Error(w, "checksums are off: start storaged with --enable-debug-pages", http.StatusForbidden)
			return
		}
		eng := s.Engine()
		if eng == nil {
			http.Error(w, "storaged is starting", http.StatusServiceUnavailable)
			return
		}
		out := []ReplicaStatus{}
		for _, g := range eng.Groups() {
			if space >= 0 && int64(g.Space) != space {
				continue
			}
			if r.Context().Err() != nil {
				return // the client left: no one reads the rest
			}
			rs := ReplicaStatus{Space: g.Space, Part: g.Part, Store: s.StoreID()}
			ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
			st, err := eng.Status(ctx, g)
			cancel()
			if err != nil {
				rs.Error = err.Error()
			} else {
				rs.Leader, rs.Term, rs.Commit, rs.Applied = st.Leader, st.Term, st.Commit, st.Applied
				if h := st.Halt; h != nil {
					rs.Halted = &HaltedStatus{Index: h.Index, Reason: h.Reason, Since: h.Since, Retries: h.Retries}
				}
			}
			if m, ok := eng.Members(g); ok {
				rs.Voters = m.Voters
			}
			if withSum && err == nil {
				sum, err := s.PartChecksumContext(r.Context(), g.Space, g.Part)
				if err != nil {
					rs.Error = err.Error()
				} else {
					rs.Checksum = &sum
				}
			}
			out = append(out, rs)
		}
		sort.Slice(out, func(i, j int) bool {
			return out[i].Space < out[j].Space || out[i].Space == out[j].Space && out[i].Part < out[j].Part
		})
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	})
}
