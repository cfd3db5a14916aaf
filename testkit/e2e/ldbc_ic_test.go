package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/novagraph/novagraph/client"
)

// LDBC Interactive Complex 1 and 13 through nGQL, against the official
// SF0.1 validation results. They run on the cluster TestLDBCGoMatchesReference
// loads (persons and knows, both directions); IC1 adds what else it reads.

// Vertex ids of places and organisations, apart from the persons' ids
// (which are below 2^50): the LDBC files number each entity from 0.
const (
	placeVid = int64(1) << 50
	orgVid   = int64(2) << 50
)

// validationCases calls fn with the params and result JSON of every line of
// the SF0.1 validation file whose params hold key.
func validationCases(t *testing.T, key string, fn func(params, result string)) int {
	t.Helper()
	path := filepath.Join(dataDir, "ldbc-sf0.1-validation", "validation_params-sf0.1-500.csv")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("LDBC validation file not found: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4<<20), 4<<20)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if !strings.Contains(line, `"`+key+`"`) {
			continue
		}
		params, result, ok := strings.Cut(line, "|")
		if !ok {
			t.Fatalf("validation line without |: %s", truncate(line))
		}
		fn(params, result)
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatalf("no %s validation cases found", key)
	}
	return n
}

// checkIC13 runs IC13 (the length of the shortest knows path between two
// persons; -1 without one, 0 from a person to itself) for every validation
// case, as FIND SHORTEST PATH.
func checkIC13(t *testing.T, s *client.Session) {
	cases := validationCases(t, "person1IdQ13StartNode", func(params, result string) {
		var p struct {
			From int64 `json:"person1IdQ13StartNode"`
			To   int64 `json:"person2IdQ13EndNode"`
		}
		var want struct {
			Length int `json:"shortestPathLength"`
		}
		if err := json.Unmarshal([]byte(params), &p); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(result), &want); err != nil {
			t.Fatal(err)
		}
		got := 0 // FIND PATH has no 0-hop paths: a person to itself is 0 by definition
		if p.From != p.To {
			// knows holds both directions, so OVER knows is undirected.
			rs := exec(t, s, fmt.Sprintf("FIND SHORTEST PATH FROM %d TO %d OVER knows UPTO 64 STEPS YIELD path AS p | YIELD DISTINCT length($-.p) AS len", p.From, p.To))
			switch rs.Len() {
			case 0:
				got = -1
			case 1:
				n, _ := rs.Row(0).Int(0)
				got = int(n)
			default:
				t.Fatalf("IC13 %d→%d: %d distinct shortest lengths", p.From, p.To, rs.Len())
			}
		}
		if got != want.Length {
			t.Fatalf("IC13 %d→%d: length %d, want %d", p.From, p.To, got, want.Length)
		}
	})
	t.Logf("IC13: %d validation cases passed", cases)
}

// loadLDBCExtra loads what IC1 reads besides Person and knows: the persons'
// other attributes (tag PersonInfo; emails and languages ';'-joined, as the
// CSV has them), places, organisations, and the isLocatedIn, studyAt and
// workAt edges.
func loadLDBCExtra(t *testing.T, s *client.Session) {
	dir := filepath.Join(dataDir, "ldbc-sf0.1")
	exec(t, s, "CREATE TAG PersonInfo(gender string, birthday int, locationIP string, browserUsed string, languages string, emails string)")
	exec(t, s, "CREATE TAG Place(name string, type string)")
	exec(t, s, "CREATE TAG Organisation(name string, type string)")
	exec(t, s, "CREATE EDGE isLocatedIn()")
	exec(t, s, "CREATE EDGE studyAt(classYear int)")
	exec(t, s, "CREATE EDGE workAt(workFrom int)")
	id := func(s string) int64 {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("bad id %q: %v", s, err)
		}
		return n
	}
	batches := func(file, head string, row func(f []string) string) {
		var items []string
		flush := func() {
			if len(items) > 0 {
				exec(t, s, head+strings.Join(items, ", "))
				items = items[:0]
			}
		}
		readPipeCSV(t, filepath.Join(dir, file), func(f []string) {
			items = append(items, row(f))
			if len(items) == 300 {
				flush()
			}
		})
		flush()
	}
	batches("person_0_0.csv", "INSERT VERTEX PersonInfo(gender, birthday, locationIP, browserUsed, languages, emails) VALUES ", func(f []string) string {
		return fmt.Sprintf("%d:(%s, %d, %s, %s, %s, %s)", id(f[0]), quote(f[3]), id(f[4]), quote(f[6]), quote(f[7]), quote(f[8]), quote(f[9]))
	})
	batches("place_0_0.csv", "INSERT VERTEX Place(name, type) VALUES ", func(f []string) string {
		return fmt.Sprintf("%d:(%s, %s)", placeVid+id(f[0]), quote(f[1]), quote(f[3]))
	})
	batches("organisation_0_0.csv", "INSERT VERTEX Organisation(name, type) VALUES ", func(f []string) string {
		return fmt.Sprintf("%d:(%s, %s)", orgVid+id(f[0]), quote(f[2]), quote(f[1]))
	})
	batches("person_isLocatedIn_place_0_0.csv", "INSERT EDGE isLocatedIn() VALUES ", func(f []string) string {
		return fmt.Sprintf("%d->%d:()", id(f[0]), placeVid+id(f[1]))
	})
	batches("organisation_isLocatedIn_place_0_0.csv", "INSERT EDGE isLocatedIn() VALUES ", func(f []string) string {
		return fmt.Sprintf("%d->%d:()", orgVid+id(f[0]), placeVid+id(f[1]))
	})
	batches("person_studyAt_organisation_0_0.csv", "INSERT EDGE studyAt(classYear) VALUES ", func(f []string) string {
		return fmt.Sprintf("%d->%d:(%d)", id(f[0]), orgVid+id(f[1]), id(f[2]))
	})
	batches("person_workAt_organisation_0_0.csv", "INSERT EDGE workAt(workFrom) VALUES ", func(f []string) string {
		return fmt.Sprintf("%d->%d:(%d)", id(f[0]), orgVid+id(f[1]), id(f[2]))
	})
}

// ic1Org is one university or company of an IC1 result row.
type ic1Org struct {
	Name  string `json:"organizationName"`
	Year  int64  `json:"year"`
	Place string `json:"placeName"`
}

// ic1Row is one IC1 result row, as the validation file spells it.
type ic1Row struct {
	ID           int64    `json:"friendId"`
	LastName     string   `json:"friendLastName"`
	Distance     int64    `json:"distanceFromPerson"`
	Birthday     int64    `json:"friendBirthday"`
	CreationDate int64    `json:"friendCreationDate"`
	Gender       string   `json:"friendGender"`
	Browser      string   `json:"friendBrowserUsed"`
	IP           string   `json:"friendLocationIp"`
	Emails       []string `json:"friendEmails"`
	Languages    []string `json:"friendLanguages"`
	City         string   `json:"friendCityName"`
	Universities []ic1Org `json:"friendUniversities"`
	Companies    []ic1Org `json:"friendCompanies"`
}

// normalize sorts the set-valued fields (the query language does not order
// them, nor does the validation file say how it did) and drops the empty
// string that splitting an empty list gives.
func (r *ic1Row) normalize() {
	clean := func(ss []string) []string {
		out := []string{}
		for _, s := range ss {
			if s != "" {
				out = append(out, s)
			}
		}
		sort.Strings(out)
		return out
	}
	r.Emails, r.Languages = clean(r.Emails), clean(r.Languages)
	sortOrgs := func(os []ic1Org) []ic1Org {
		if os == nil {
			os = []ic1Org{}
		}
		sort.Slice(os, func(i, j int) bool {
			if os[i].Name != os[j].Name {
				return os[i].Name < os[j].Name
			}
			if os[i].Year != os[j].Year {
				return os[i].Year < os[j].Year
			}
			return os[i].Place < os[j].Place
		})
		return os
	}
	r.Universities, r.Companies = sortOrgs(r.Universities), sortOrgs(r.Companies)
}

func stringList(t *testing.T, row client.Row, j int) []string {
	t.Helper()
	items, err := row.List(j)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = fmt.Sprint(it)
	}
	return out
}

// checkIC1 runs IC1 (persons with a given first name within 3 knows hops
// of a person, not the person, by distance, last name and id, the first 20,
// with their attributes, city, universities and companies) for every
// validation case. graphd finds the candidates (GO 1 TO 3 STEPS), their
// distance (FIND SHORTEST PATH), their attributes (FETCH) and orders and
// limits them (ORDER BY, LIMIT); the city, universities and companies of
// the 20 come from three more GO statements.
func checkIC1(t *testing.T, s *client.Session) {
	loadLDBCExtra(t, s)
	rowsCompared := 0
	cases := validationCases(t, "personIdQ1", func(params, result string) {
		var p struct {
			PersonID  int64  `json:"personIdQ1"`
			FirstName string `json:"firstName"`
			Limit     int    `json:"limit"`
		}
		if err := json.Unmarshal([]byte(params), &p); err != nil {
			t.Fatal(err)
		}
		var want []ic1Row
		if err := json.Unmarshal([]byte(result), &want); err != nil {
			t.Fatal(err)
		}
		stmt := fmt.Sprintf(`GO 1 TO 3 STEPS FROM %d OVER knows WHERE $$.Person.firstName == %s AND dst(edge) != %d YIELD DISTINCT dst(edge) AS id`+
			` | FIND SHORTEST PATH FROM %d TO $-.id OVER knows UPTO 3 STEPS YIELD path AS p`+
			` | YIELD DISTINCT id(endNode($-.p)) AS id, length($-.p) AS distance`+
			` | FETCH PROP ON Person, PersonInfo $-.id YIELD $-.id AS id, Person.lastName AS lastName, $-.distance AS distance,`+
			` PersonInfo.birthday AS birthday, Person.creationDate AS creationDate, PersonInfo.gender AS gender,`+
			` PersonInfo.browserUsed AS browser, PersonInfo.locationIP AS ip, split(PersonInfo.emails, ";") AS emails,`+
			` split(PersonInfo.languages, ";") AS languages`+
			` | ORDER BY $-.distance, $-.lastName, $-.id | LIMIT %d`,
			p.PersonID, quote(p.FirstName), p.PersonID, p.PersonID, p.Limit)
		rs := exec(t, s, stmt)
		got := make([]ic1Row, rs.Len())
		index := map[int64]*ic1Row{}
		var ids []string
		for i := range got {
			row := rs.Row(i)
			g := &got[i]
			g.ID, _ = row.Int(0)
			g.LastName, _ = row.String(1)
			g.Distance, _ = row.Int(2)
			g.Birthday, _ = row.Int(3)
			g.CreationDate, _ = row.Int(4)
			g.Gender, _ = row.String(5)
			g.Browser, _ = row.String(6)
			g.IP, _ = row.String(7)
			g.Emails = stringList(t, row, 8)
			g.Languages = stringList(t, row, 9)
			index[g.ID] = g
			ids = append(ids, strconv.FormatInt(g.ID, 10))
		}
		if len(ids) > 0 {
			from := strings.Join(ids, ", ")
			rs = exec(t, s, fmt.Sprintf(`GO FROM %s OVER isLocatedIn YIELD src(edge) AS id, $$.Place.name AS city`, from))
			for i := 0; i < rs.Len(); i++ {
				id, _ := rs.Row(i).Int(0)
				index[id].City, _ = rs.Row(i).String(1)
			}
			for _, org := range []struct {
				edge, year string
				list       func(*ic1Row) *[]ic1Org
			}{
				{"studyAt", "classYear", func(r *ic1Row) *[]ic1Org { return &r.Universities }},
				{"workAt", "workFrom", func(r *ic1Row) *[]ic1Org { return &r.Companies }},
			} {
				rs = exec(t, s, fmt.Sprintf(`GO FROM %s OVER %s YIELD src(edge) AS id, dst(edge) AS org, %s.%s AS year, $$.Organisation.name AS name`+
					` | GO FROM $-.org OVER isLocatedIn YIELD $-.id AS id, $-.name AS name, $-.year AS year, $$.Place.name AS place`,
					from, org.edge, org.edge, org.year))
				for i := 0; i < rs.Len(); i++ {
					row := rs.Row(i)
					id, _ := row.Int(0)
					var o ic1Org
					o.Name, _ = row.String(1)
					o.Year, _ = row.Int(2)
					o.Place, _ = row.String(3)
					l := org.list(index[id])
					*l = append(*l, o)
				}
			}
		}
		if len(got) != len(want) {
			t.Fatalf("IC1 person %d %q: %d rows, want %d", p.PersonID, p.FirstName, len(got), len(want))
		}
		for i := range want {
			got[i].normalize()
			want[i].normalize()
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("IC1 person %d %q row %d:\n got %+v\nwant %+v", p.PersonID, p.FirstName, i, got[i], want[i])
			}
		}
		rowsCompared += len(want)
	})
	t.Logf("IC1: %d validation cases passed (%d rows, all 13 result fields compared)", cases, rowsCompared)
}
