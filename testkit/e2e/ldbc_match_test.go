package e2e

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/novagraph/novagraph/client"
)

// LDBC Interactive Short 3 and Complex 1 and 13 written as MATCH, as a
// NebulaGraph user writes them, against the official SF0.1 validation
// results. They run on TestLDBCGoMatchesReference's cluster (knows stored
// in both directions, so a directed pattern reaches every friend).

// checkIS3Match is IS3: a person's friends with the friendship date,
// newest first, ties by id.
func checkIS3Match(t *testing.T, s *client.Session) {
	cases := validationCases(t, "personIdSQ3", func(params, result string) {
		var p struct {
			PersonID int64 `json:"personIdSQ3"`
		}
		var want []struct {
			PersonID  int64  `json:"personId"`
			FirstName string `json:"firstName"`
			LastName  string `json:"lastName"`
			Date      int64  `json:"friendshipCreationDate"`
		}
		if err := json.Unmarshal([]byte(params), &p); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(result), &want); err != nil {
			t.Fatal(err)
		}
		rs := exec(t, s, fmt.Sprintf(`MATCH (n:Person)-[r:knows]->(friend:Person) WHERE id(n) == %d`+
			` RETURN id(friend) AS personId, friend.Person.firstName AS firstName, friend.Person.lastName AS lastName,`+
			` r.creationDate AS date ORDER BY date DESC, personId ASC`, p.PersonID))
		if rs.Len() != len(want) {
			t.Fatalf("IS3 person %d: %d friends, want %d", p.PersonID, rs.Len(), len(want))
		}
		for i, w := range want {
			row := rs.Row(i)
			id, _ := row.Int(0)
			first, _ := row.String(1)
			last, _ := row.String(2)
			date, _ := row.Int(3)
			if id != w.PersonID || first != w.FirstName || last != w.LastName || date != w.Date {
				t.Fatalf("IS3 person %d row %d: got %d %q %q %d, want %+v", p.PersonID, i, id, first, last, date, w)
			}
		}
	})
	t.Logf("IS3 as MATCH: %d validation cases passed", cases)
}

// checkIC13Match is IC13: the length of the shortest knows path between
// two persons, -1 without one, 0 from a person to itself.
func checkIC13Match(t *testing.T, s *client.Session) {
	cases := validationCases(t, "person1IdQ13StartNode", func(params, result string) {
		var p struct {
			From int64 `json:"person1IdQ13StartNode"`
			To   int64 `json:"person2IdQ13EndNode"`
		}
		var want struct {
			Length int64 `json:"shortestPathLength"`
		}
		if err := json.Unmarshal([]byte(params), &p); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(result), &want); err != nil {
			t.Fatal(err)
		}
		rs := exec(t, s, fmt.Sprintf(`MATCH (a:Person), (b:Person) WHERE id(a) == %d AND id(b) == %d`+
			` OPTIONAL MATCH p = shortestPath((a)-[:knows*0..64]->(b))`+
			` RETURN CASE WHEN p IS NULL THEN -1 ELSE length(p) END AS len`, p.From, p.To))
		if rs.Len() != 1 {
			t.Fatalf("IC13 %d→%d: %d rows, want 1", p.From, p.To, rs.Len())
		}
		if got, _ := rs.Row(0).Int(0); got != want.Length {
			t.Fatalf("IC13 %d→%d: length %d, want %d", p.From, p.To, got, want.Length)
		}
	})
	t.Logf("IC13 as MATCH: %d validation cases passed", cases)
}

// ic1MatchQuery is IC1 in one MATCH query: the friends within three hops
// with the first name, each at its least distance, the first 20 by
// distance, last name and id, with their city, universities and
// companies.
const ic1MatchQuery = `MATCH p = (n:Person)-[:knows*1..3]->(f:Person) WHERE id(n) == %d AND f.Person.firstName == %s AND id(f) != %d
WITH f, min(length(p)) AS distance ORDER BY distance, f.Person.lastName, id(f) LIMIT %d
OPTIONAL MATCH (f)-[:isLocatedIn]->(city:Place)
OPTIONAL MATCH (f)-[s:studyAt]->(u:Organisation)-[:isLocatedIn]->(uc:Place)
WITH f, distance, city, collect(CASE WHEN u IS NULL THEN NULL ELSE [u.Organisation.name, s.classYear, uc.Place.name] END) AS unis
OPTIONAL MATCH (f)-[w:workAt]->(c:Organisation)-[:isLocatedIn]->(cc:Place)
RETURN id(f) AS id, f.Person.lastName AS lastName, distance, f.PersonInfo.birthday AS birthday,
  f.Person.creationDate AS creationDate, f.PersonInfo.gender AS gender, f.PersonInfo.browserUsed AS browser,
  f.PersonInfo.locationIP AS ip, split(f.PersonInfo.emails, ";") AS emails, split(f.PersonInfo.languages, ";") AS languages,
  city.Place.name AS city, unis, collect(CASE WHEN c IS NULL THEN NULL ELSE [c.Organisation.name, w.workFrom, cc.Place.name] END) AS companies
ORDER BY distance, lastName, id`

// checkIC1Match is IC1 as one MATCH query; loadLDBCExtra must have run.
func checkIC1Match(t *testing.T, s *client.Session) {
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
		rs := exec(t, s, fmt.Sprintf(ic1MatchQuery, p.PersonID, quote(p.FirstName), p.PersonID, p.Limit))
		if rs.Len() != len(want) {
			t.Fatalf("IC1 person %d %q: %d rows, want %d", p.PersonID, p.FirstName, rs.Len(), len(want))
		}
		for i := range want {
			row := rs.Row(i)
			var g ic1Row
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
			g.City, _ = row.String(10)
			g.Universities = ic1Orgs(t, row, 11)
			g.Companies = ic1Orgs(t, row, 12)
			g.normalize()
			want[i].normalize()
			if !reflect.DeepEqual(g, want[i]) {
				t.Fatalf("IC1 person %d %q row %d:\n got %+v\nwant %+v", p.PersonID, p.FirstName, i, g, want[i])
			}
		}
		rowsCompared += len(want)
	})
	t.Logf("IC1 as MATCH: %d validation cases passed (%d rows, all 13 result fields compared)", cases, rowsCompared)
}

// ic1Orgs reads a list of [name, year, place] lists.
func ic1Orgs(t *testing.T, row client.Row, j int) []ic1Org {
	t.Helper()
	items, err := row.List(j)
	if err != nil {
		t.Fatal(err)
	}
	out := []ic1Org{}
	for _, it := range items {
		l, ok := it.([]any)
		if !ok || len(l) != 3 {
			t.Fatalf("column %d: %v is not [name, year, place]", j, it)
		}
		o := ic1Org{Name: fmt.Sprint(l[0]), Place: fmt.Sprint(l[2])}
		if y, ok := l[1].(int64); ok {
			o.Year = y
		} else {
			t.Fatalf("column %d: year %v (%T) is not an INT", j, l[1], l[1])
		}
		out = append(out, o)
	}
	return out
}
