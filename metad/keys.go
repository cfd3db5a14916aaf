package metad

import (
	"fmt"
	"strconv"
	"strings"
)

// The catalog's etcd key layout (cf. NebulaGraph's MetaKeyUtils). Every key
// lives under keyRoot so that one prefix watch sees the whole catalog and an
// external etcd can be shared with other applications. Numeric ids in keys
// are decimal; values are protobuf-marshalled unless noted.
//
//	/novagraph/spaces/<space_id>                  SpaceDesc
//	/novagraph/space_names/<name>                 <space_id> (decimal text); makes names unique
//	/novagraph/parts/<space_id>                   SpaceParts: the replicas of every partition
//	/novagraph/tags/<space_id>/<tag_id>           TagDesc (every schema version)
//	/novagraph/edges/<space_id>/<edge_type>       EdgeDesc (every schema version)
//	/novagraph/schema_names/<space_id>/<name>     "tag:<id>" or "edge:<id>"; one name per space
//	                                              across tags and edges
//	/novagraph/indexes/<space_id>/<index_id>      IndexDesc
//	/novagraph/index_names/<space_id>/<name>      <index_id> (decimal text); one index name per
//	                                              space across tag and edge indexes
//	/novagraph/hosts/<store_id>                   HostInfo with store_id and addr only; exists
//	                                              while the host is added (hosts.go)
//	/novagraph/host_addrs/<host>:<port>           <store_id> (decimal text); stable store ids,
//	                                              never deleted (a dropped host keeps its id)
//	/novagraph/alive/<store_id>                   empty; attached to the host's lease, so it
//	                                              exists exactly while the host is online
//	/novagraph/leaders/<store_id>                 HeartbeatReq holding store_id and the
//	                                              (space, part, term) the host last reported
//	                                              leading; attached to the host's lease, so a
//	                                              dead host's claims vanish with it
//	/novagraph/users/<name>                       UserRecord: the name and the bcrypt hash of the
//	                                              password. Only metad reads it: the catalog sent
//	                                              to graphd lists users (UserInfo) without hashes
//	/novagraph/roles/<space_id>/<name>            the user's role on the space: the RoleType name
//	                                              as text ("ADMIN", "DBA", "USER" or "GUEST"); one
//	                                              role per user and space. Root's GOD is implicit
//	                                              and never stored
//	/novagraph/counters/space_id                  last assigned space id (decimal text)
//	/novagraph/counters/store_id                  last assigned store id (decimal text)
//	/novagraph/counters/schema_id/<space_id>      last tag/edge id of the space (decimal text)
//	/novagraph/counters/index_id/<space_id>       last index id of the space (decimal text)
//
// Heartbeat timestamps are deliberately not stored: a keep-alive refreshes the
// lease without a write, so the etcd revision, which is the catalog version,
// moves only when the catalog really changes.
//
// Jobs (SUBMIT JOB …, metad/jobs.go) live beside the catalog under jobsRoot,
// outside the watched prefix: a job's progress changes every few seconds and
// must not push the whole catalog to every graphd and storaged each time.
//
//	/novagraph-jobs/counter                       last assigned job id (decimal text)
//	/novagraph-jobs/jobs/<job_id>                 JobDesc: type, space, status, times, and
//	                                              whether the current round's plan is stored
//	/novagraph-jobs/tasks/<job_id>/<task_id>      JobTask: one move, transfer or compaction,
//	                                              its status and the steps it finished
//	/novagraph-jobs/runner/<lease_hex>            the job runner election (etcd concurrency
//	                                              package): the oldest key's owner runs jobs;
//	                                              each key is attached to its metad's session
//	                                              lease, so a dead runner's key expires
const keyRoot = "/novagraph/"

const (
	prefixSpaces      = keyRoot + "spaces/"
	prefixSpaceNames  = keyRoot + "space_names/"
	prefixParts       = keyRoot + "parts/"
	prefixTags        = keyRoot + "tags/"
	prefixEdges       = keyRoot + "edges/"
	prefixSchemaNames = keyRoot + "schema_names/"
	prefixIndexes     = keyRoot + "indexes/"
	prefixIndexNames  = keyRoot + "index_names/"
	prefixHosts       = keyRoot + "hosts/"
	prefixHostAddrs   = keyRoot + "host_addrs/"
	prefixAlive       = keyRoot + "alive/"
	prefixLeaders     = keyRoot + "leaders/"
	prefixUsers       = keyRoot + "users/"
	prefixRoles       = keyRoot + "roles/"

	keySpaceIDCounter  = keyRoot + "counters/space_id"
	keyStoreIDCounter  = keyRoot + "counters/store_id"
	prefixSchemaIDCntr = keyRoot + "counters/schema_id/"
	prefixIndexIDCntr  = keyRoot + "counters/index_id/"

	// keyHealth is read (never written) by the health check: a linearizable
	// Get needs a live etcd quorum, which is what metad needs to serve.
	keyHealth = keyRoot + "health"
)

// Job keys (see the layout above). jobsRoot deliberately does not start with
// keyRoot.
const (
	jobsRoot         = "/novagraph-jobs/"
	keyJobIDCounter  = jobsRoot + "counter"
	prefixJobs       = jobsRoot + "jobs/"
	prefixJobTasks   = jobsRoot + "tasks/"
	prefixJobsRunner = jobsRoot + "runner" // concurrency.Election adds the "/"
)

func jobKey(id int64) string                 { return prefixJobs + itoa(id) }
func jobTasksPrefix(id int64) string         { return prefixJobTasks + itoa(id) + "/" }
func jobTaskKey(id int64, task int32) string { return jobTasksPrefix(id) + itoa(int64(task)) }

func spaceKey(id int32) string             { return prefixSpaces + itoa(int64(id)) }
func spaceNameKey(name string) string      { return prefixSpaceNames + name }
func partsKey(space int32) string          { return prefixParts + itoa(int64(space)) }
func tagsPrefix(space int32) string        { return prefixTags + itoa(int64(space)) + "/" }
func edgesPrefix(space int32) string       { return prefixEdges + itoa(int64(space)) + "/" }
func tagKey(space, id int32) string        { return tagsPrefix(space) + itoa(int64(id)) }
func edgeKey(space, id int32) string       { return edgesPrefix(space) + itoa(int64(id)) }
func schemaNamesPrefix(space int32) string { return prefixSchemaNames + itoa(int64(space)) + "/" }
func schemaNameKey(space int32, name string) string {
	return schemaNamesPrefix(space) + name
}
func schemaIDCounterKey(space int32) string { return prefixSchemaIDCntr + itoa(int64(space)) }
func indexesPrefix(space int32) string      { return prefixIndexes + itoa(int64(space)) + "/" }
func indexKey(space, id int32) string       { return indexesPrefix(space) + itoa(int64(id)) }
func indexNamesPrefix(space int32) string   { return prefixIndexNames + itoa(int64(space)) + "/" }
func indexNameKey(space int32, name string) string {
	return indexNamesPrefix(space) + name
}
func indexIDCounterKey(space int32) string { return prefixIndexIDCntr + itoa(int64(space)) }
func hostKey(store uint64) string          { return prefixHosts + strconv.FormatUint(store, 10) }
func hostAddrKey(addr string) string       { return prefixHostAddrs + addr }
func aliveKey(store uint64) string         { return prefixAlive + strconv.FormatUint(store, 10) }
func leadersKey(store uint64) string       { return prefixLeaders + strconv.FormatUint(store, 10) }

func userKey(name string) string              { return prefixUsers + name }
func rolesPrefix(space int32) string          { return prefixRoles + itoa(int64(space)) + "/" }
func roleKey(space int32, user string) string { return rolesPrefix(space) + user }

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// parseRoleKey splits a roles key into its space id and user name.
func parseRoleKey(key string) (int32, string, error) {
	id, user, ok := strings.Cut(strings.TrimPrefix(key, prefixRoles), "/")
	n, err := strconv.ParseInt(id, 10, 32)
	if !ok || err != nil || user == "" || !strings.HasPrefix(key, prefixRoles) {
		return 0, "", fmt.Errorf("malformed role key %q", key)
	}
	return int32(n), user, nil
}

// schemaRef is the value of a schema_names key: which kind of schema owns the
// name, and its id.
type schemaRef struct {
	isEdge bool
	id     int32
}

func (r schemaRef) String() string {
	if r.isEdge {
		return "edge:" + itoa(int64(r.id))
	}
	return "tag:" + itoa(int64(r.id))
}

func (r schemaRef) kind() string {
	if r.isEdge {
		return "edge"
	}
	return "tag"
}

func parseSchemaRef(v []byte) (schemaRef, error) {
	kind, id, ok := strings.Cut(string(v), ":")
	n, err := strconv.ParseInt(id, 10, 32)
	if !ok || err != nil || (kind != "tag" && kind != "edge") {
		return schemaRef{}, fmt.Errorf("malformed schema name entry %q", v)
	}
	return schemaRef{isEdge: kind == "edge", id: int32(n)}, nil
}

// parseCounter decodes a counter value; a missing key (nil) is 0.
func parseCounter(v []byte) (int64, error) {
	if v == nil {
		return 0, nil
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("malformed counter %q: %w", v, err)
	}
	return n, nil
}

// idFromKey returns the numeric id that ends key (a store id or a space id).
func idFromKey(key, prefix string) (uint64, error) {
	id, err := strconv.ParseUint(strings.TrimPrefix(key, prefix), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("malformed key %q: %w", key, err)
	}
	return id, nil
}
