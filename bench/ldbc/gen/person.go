package gen

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
)

// Person is one row of person_0_0.csv.
type Person struct {
	ID                     int64
	FirstName, LastName    string
	Gender                 string // "male" or "female"
	Birthday, CreationDate int64  // epoch milliseconds (birthday at 00:00 UTC)
	LocationIP             string
	BrowserUsed            string
	Language               string // e.g. "zh;en"
	Email                  string // ';'-separated list of 1–3 addresses
}

// Headers of the two files, exactly as LDBC's CsvComposite serializer writes
// them (with epoch-millisecond dates).
const (
	PersonHeader = "id|firstName|lastName|gender|birthday|creationDate|locationIP|browserUsed|language|email"
	KnowsHeader  = "Person.id|Person.id|creationDate"
)

// dist is a small discrete distribution over indices.
type dist struct{ cum []uint32 } // cumulative weights

func newDist(weights []uint32) dist {
	d := dist{cum: make([]uint32, len(weights))}
	var s uint32
	for k, w := range weights {
		s += w
		d.cum[k] = s
	}
	return d
}

// pick maps 64 random bits to an index with probability ∝ its weight.
func (d *dist) pick(x uint64) int {
	t := uint32((x >> 32) * uint64(d.cum[len(d.cum)-1]) >> 32)
	for k, c := range d.cum {
		if t < c {
			return k
		}
	}
	return len(d.cum) - 1
}

// weighted is a small discrete distribution over strings.
type weighted struct {
	vals []string
	dist
}

func newWeighted(vals []string, weights []uint32) weighted {
	return weighted{vals: vals, dist: newDist(weights)}
}

// zipf weights the k-th value (from 0) by 1/(k+2), so the first few names
// of a list are much more frequent than the rest (as in LDBC, where e.g.
// "John", "Carlos" and "Rahul" dominate; IC1-style queries rely on that
// skew). The most frequent first name covers ~2.5% of persons, like "John"
// in LDBC's SF0.1.
func zipf(vals ...string) weighted {
	ws := make([]uint32, len(vals))
	for k := range ws {
		ws[k] = uint32(2520 / (k + 2))
	}
	return newWeighted(vals, ws)
}

func (w *weighted) value(x uint64) string { return w.vals[w.pick(x)] }

// profile is a coarse "country": it correlates names, languages, IP ranges
// and a local mail domain, like LDBC's location-dependent dictionaries.
type profile struct {
	weight      uint32
	male        weighted
	female      weighted
	last        weighted
	lang        weighted
	ipFirst     []uint8
	localDomain string
}

var profiles = []profile{
	{ // China
		weight: 20,
		male:   zipf("Jun", "Yang", "Wei", "Hao", "Jie", "Lei", "Chen", "Zheng", "Lin", "Bing"),
		female: zipf("Li", "Yan", "Jing", "Min", "Hui", "Xiu", "Fang", "Ying", "Mei", "Lan", "Na", "Xia"),
		last:   zipf("Zhang", "Li", "Wang", "Chen", "Yang", "Liu", "Zhu", "Xu", "Zhou", "Wu"),
		lang:   newWeighted([]string{"zh;en", "zh;ar;en", "en"}, []uint32{90, 3, 7}),
		ipFirst: []uint8{1, 14, 27, 36, 42, 58, 59, 60, 61, 101, 110,
			111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123},
		localDomain: "163.com",
	},
	{ // India
		weight: 16,
		male: zipf("Rahul", "Arjun", "Abhishek", "A.", "K.", "Ashok", "R.", "Karan",
			"Kunal", "Naresh", "Amit", "Vikram"),
		female: zipf("Shweta", "Priya", "Anjali", "Deepa", "Sneha", "Kavita", "Pooja", "Neha", "Lakshmi", "Sunita"),
		last:   zipf("Khan", "Singh", "Sharma", "Kumar", "Reddy", "Rao", "Kapoor", "Nair", "Patel", "Gupta"),
		lang: newWeighted([]string{"hi;en", "te;en", "ta;te;en", "ml;te;en", "ur;en", "bn;en", "en"},
			[]uint32{30, 14, 10, 10, 12, 10, 14}),
		ipFirst:     []uint8{1, 14, 27, 49, 59, 61, 103, 106, 115, 117, 122, 182, 203},
		localDomain: "rediffmail.com",
	},
	{ // English-speaking
		weight:      10,
		male:        zipf("John", "David", "Paul", "George", "Michael", "James", "Richard", "Frank"),
		female:      zipf("Mary", "Jennifer", "Sarah", "Emily", "Jessica", "Susan"),
		last:        zipf("Smith", "Brown", "Jones", "Wilson", "Williams", "Johnson", "Miller", "Davis", "Anderson"),
		lang:        newWeighted([]string{"en", "en;es", "en;fr", "en;tl"}, []uint32{80, 8, 4, 8}),
		ipFirst:     []uint8{3, 12, 18, 24, 31, 64, 66, 68, 72, 98, 204, 208},
		localDomain: "aol.com",
	},
	{ // Spanish-speaking
		weight: 10,
		male:   zipf("Carlos", "Jose", "Juan", "Luis", "Miguel", "Francisco", "Alcides"),
		female: zipf("Maria", "Carmen", "Ana", "Laura", "Sofia", "Aurora"),
		last: zipf("Rodriguez", "Garcia", "Gonzalez", "Alvarez", "Fernandez", "Lopez", "Perez",
			"Sanchez", "Reyes", "Cruz"),
		lang:        newWeighted([]string{"es;en", "en;es", "en"}, []uint32{85, 10, 5}),
		ipFirst:     []uint8{31, 148, 168, 181, 186, 187, 189, 190, 200, 201},
		localDomain: "terra.es",
	},
	{ // German-speaking
		weight:      6,
		male:        zipf("Hans", "Otto", "Karl", "Stefan", "Fritz", "Michael"),
		female:      zipf("Anna", "Greta", "Petra", "Ursula", "Heike"),
		last:        zipf("Muller", "Schmidt", "Becker", "Fischer", "Weber", "Meyer", "Wagner"),
		lang:        newWeighted([]string{"de;en", "it;de;en"}, []uint32{92, 8}),
		ipFirst:     []uint8{2, 31, 46, 62, 77, 78, 79, 80, 84, 85, 91, 217},
		localDomain: "web.de",
	},
	{ // Portuguese-speaking
		weight:      6,
		male:        zipf("Paulo", "Joao", "Pedro", "Lucas", "Dominic"),
		female:      zipf("Ana", "Beatriz", "Fernanda", "Juliana", "Emperor of Brazil"),
		last:        zipf("Silva", "Santos", "Oliveira", "Alves", "Souza", "Costa", "Pereira", "Machado"),
		lang:        newWeighted([]string{"pt;en", "en"}, []uint32{93, 7}),
		ipFirst:     []uint8{177, 186, 187, 189, 192, 200, 201},
		localDomain: "uol.com.br",
	},
	{ // Russian-speaking
		weight:      5,
		male:        zipf("Alexander", "Ivan", "Dmitri", "Sergei", "Alyaksey"),
		female:      zipf("Olga", "Natalia", "Elena", "Irina"),
		last:        zipf("Popov", "Ivanov", "Petrov", "Smirnov", "Kuznetsov", "Akhiezer"),
		lang:        newWeighted([]string{"ru;en", "ru;uk;en", "be;en"}, []uint32{80, 12, 8}),
		ipFirst:     []uint8{5, 31, 37, 46, 77, 78, 81, 91, 93, 95, 178},
		localDomain: "newmail.ru",
	},
	{ // Arabic-speaking
		weight:      5,
		male:        zipf("Ali", "Muhammad", "Ahmed", "Abdul Hameed", "Omar", "Ibrahim"),
		female:      zipf("Fatima", "Aisha", "Mariam", "Layla", "Ayesha"),
		last:        zipf("Ahmed", "Hassan", "Ali", "Hussein", "Mahmoud", "Ibrahim", "Malik"),
		lang:        newWeighted([]string{"ar;en", "ar;fr;en", "en;ar"}, []uint32{65, 25, 10}),
		ipFirst:     []uint8{41, 46, 62, 78, 80, 109, 154, 196, 197},
		localDomain: "sudanese.cc",
	},
	{ // French-speaking
		weight:      4,
		male:        zipf("Jean", "Pierre", "Louis", "Michel", "Abdoulaye"),
		female:      zipf("Marie", "Camille", "Sophie", "Claire"),
		last:        zipf("Martin", "Bernard", "Dubois", "Thomas", "Robert", "Petit"),
		lang:        newWeighted([]string{"fr;en", "en;fr"}, []uint32{90, 10}),
		ipFirst:     []uint8{2, 5, 31, 41, 46, 62, 78, 80, 82, 90, 92, 196},
		localDomain: "laposte.net",
	},
	{ // Japanese-speaking
		weight:      3,
		male:        zipf("Hiroshi", "Ken", "Takeshi", "Kenji", "Akira"),
		female:      zipf("Yuki", "Yoko", "Keiko", "Naoko"),
		last:        zipf("Sato", "Suzuki", "Takahashi", "Tanaka", "Kobayashi", "Yamada"),
		lang:        newWeighted([]string{"ja;en"}, []uint32{1}),
		ipFirst:     []uint8{27, 36, 42, 49, 58, 60, 101, 110, 114, 118, 126, 133},
		localDomain: "yahoo.co.jp",
	},
	{ // Vietnamese-speaking
		weight:      3,
		male:        zipf("Minh", "Tuan", "Hung", "Duc", "Cam"),
		female:      zipf("Lan", "Hoa", "Linh", "Mai"),
		last:        zipf("Nguyen", "Tran", "Le", "Pham", "Hoang", "Ha"),
		lang:        newWeighted([]string{"vi;en", "vi;fr;en", "vi;zh;en"}, []uint32{60, 25, 15}),
		ipFirst:     []uint8{1, 14, 27, 42, 58, 103, 113, 115, 117, 123, 183},
		localDomain: "vnn.vn",
	},
	{ // Sinhala/Tamil-speaking (Sri Lanka)
		weight:      2,
		male:        zipf("Mahinda", "Chaminda", "Nuwan", "Sanath"),
		female:      zipf("Kumari", "Dilini", "Nadeesha"),
		last:        zipf("Perera", "Fernando", "Silva", "Jayasuriya", "Bandara"),
		lang:        newWeighted([]string{"si;en", "ta;en"}, []uint32{80, 20}),
		ipFirst:     []uint8{43, 61, 103, 112, 119, 124, 175, 203},
		localDomain: "boarderzone.com",
	},
	{ // Dutch/Nordic-speaking
		weight:      2,
		male:        zipf("Jan", "Hans", "Pieter", "Willem", "Adriaen"),
		female:      zipf("Emma", "Sanne", "Lotte", "Ingrid"),
		last:        zipf("Jansen", "Johansson", "Visser", "Bakker", "Dam", "Smit"),
		lang:        newWeighted([]string{"nl;en", "sv;fi;en", "sv;en"}, []uint32{55, 20, 25}),
		ipFirst:     []uint8{31, 37, 46, 62, 77, 80, 81, 82, 83, 84, 85, 145, 213},
		localDomain: "planet.nl",
	},
}

var (
	profileDist = func() dist {
		ws := make([]uint32, len(profiles))
		for k, p := range profiles {
			ws[k] = p.weight
		}
		return newDist(ws)
	}()
	// Real SF0.1 counts: Firefox 628, Chrome 438, IE 364, Safari 54, Opera 44.
	browsers = newWeighted(
		[]string{"Firefox", "Chrome", "Internet Explorer", "Safari", "Opera"},
		[]uint32{628, 438, 364, 54, 44})
	// Real SF0.1 counts: gmail 1191, yahoo 708, gmx 693, hotmail 277, zoho 250;
	// the last weight is the profile's local domain.
	domainNames = []string{"gmail.com", "yahoo.com", "gmx.com", "hotmail.com", "zoho.com"}
	domainDist  = newDist([]uint32{1191, 708, 693, 277, 250, 80})
)

// personRec is a generated person before formatting; strings point into the
// static tables, so generating one allocates nothing.
type personRec struct {
	id                 int64
	first, last        string
	female             bool
	birthday, creation int64
	ip                 [4]uint8
	browser, lang      string
	nEmail             int
	domains            [3]string
}

// personGen generates person records; not safe for concurrent use.
type personGen struct {
	m   *model
	pcg rand.PCG
}

func (g *personGen) gen(i int64, p *personRec) {
	m := g.m
	g.pcg.Seed(hash2(m.keys[tagPerson], uint64(i)), hash2(m.keys[tagPerson]+1, uint64(i)))
	r := &g.pcg
	prof := &profiles[profileDist.pick(r.Uint64())]
	p.id = PersonID(i)
	p.female = r.Uint64()&1 == 1
	if p.female {
		p.first = prof.female.value(r.Uint64())
	} else {
		p.first = prof.male.value(r.Uint64())
	}
	p.last = prof.last.value(r.Uint64())
	days := uint64((birthEnd - birthStart) / msPerDay)
	p.birthday = birthStart + int64(r.Uint64()%days)*msPerDay
	p.creation = m.creation(i)
	p.ip[0] = prof.ipFirst[r.Uint64()%uint64(len(prof.ipFirst))]
	x := r.Uint64()
	p.ip[1], p.ip[2], p.ip[3] = uint8(x), uint8(x>>8), 1+uint8((x>>16)%254)
	p.browser = browsers.value(r.Uint64())
	p.lang = prof.lang.value(r.Uint64())
	// 1, 2 or 3 addresses (30/40/30%) at distinct domains, sorted like LDBC.
	switch x = r.Uint64() % 10; {
	case x < 3:
		p.nEmail = 1
	case x < 7:
		p.nEmail = 2
	default:
		p.nEmail = 3
	}
	var used uint32
	for k := 0; k < p.nEmail; k++ {
		for {
			d := domainDist.pick(r.Uint64())
			if used&(1<<d) != 0 {
				continue
			}
			used |= 1 << d
			break
		}
	}
	k := 0
	var sorted [3]string
	for d := 0; d <= len(domainNames); d++ {
		if used&(1<<d) != 0 {
			if d == len(domainNames) {
				sorted[k] = prof.localDomain
			} else {
				sorted[k] = domainNames[d]
			}
			k++
		}
	}
	slices.Sort(sorted[:k])
	p.domains = sorted
}

func appendIP(b []byte, ip [4]uint8) []byte {
	for k, o := range ip {
		if k > 0 {
			b = append(b, '.')
		}
		b = strconv.AppendUint(b, uint64(o), 10)
	}
	return b
}

// appendEmailName appends the local part of an address: the first name with
// spaces turned into dots (as LDBC does), then the id.
func appendEmailName(b []byte, first string, id int64) []byte {
	for k := 0; k < len(first); k++ {
		c := first[k]
		if c == ' ' {
			c = '.'
		}
		b = append(b, c)
	}
	return strconv.AppendInt(b, id, 10)
}

func appendEmails(b []byte, p *personRec) []byte {
	for k := 0; k < p.nEmail; k++ {
		if k > 0 {
			b = append(b, ';')
		}
		b = appendEmailName(b, p.first, p.id)
		b = append(b, '@')
		b = append(b, p.domains[k]...)
	}
	return b
}

func gender(female bool) string {
	if female {
		return "female"
	}
	return "male"
}

// appendCSV appends p as one person_0_0.csv line.
func (p *personRec) appendCSV(b []byte) []byte {
	b = strconv.AppendInt(b, p.id, 10)
	b = append(b, '|')
	b = append(b, p.first...)
	b = append(b, '|')
	b = append(b, p.last...)
	b = append(b, '|')
	b = append(b, gender(p.female)...)
	b = append(b, '|')
	b = strconv.AppendInt(b, p.birthday, 10)
	b = append(b, '|')
	b = strconv.AppendInt(b, p.creation, 10)
	b = append(b, '|')
	b = appendIP(b, p.ip)
	b = append(b, '|')
	b = append(b, p.browser...)
	b = append(b, '|')
	b = append(b, p.lang...)
	b = append(b, '|')
	b = appendEmails(b, p)
	return append(b, '\n')
}

func (p *personRec) person() Person {
	return Person{
		ID:           p.id,
		FirstName:    p.first,
		LastName:     p.last,
		Gender:       gender(p.female),
		Birthday:     p.birthday,
		CreationDate: p.creation,
		LocationIP:   string(appendIP(make([]byte, 0, 16), p.ip)),
		BrowserUsed:  p.browser,
		Language:     p.lang,
		Email:        string(appendEmails(make([]byte, 0, 128), p)),
	}
}

// eachPerson calls fn for the persons of shard/shards in index order.
func (m *model) eachPerson(ctx context.Context, shard, shards int64, fn func(*personRec) error) error {
	g := personGen{m: m}
	var p personRec
	for i := shard; i < m.n; i += shards {
		if (i/shards)&4095 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		g.gen(i, &p)
		if err := fn(&p); err != nil {
			return err
		}
	}
	return nil
}

// Persons streams the persons selected by cfg (all, or one shard) in id
// order. cfg.OutDir and cfg.Gzip are ignored. An error from fn stops the
// stream and is returned.
func Persons(cfg Config, fn func(p Person) error) error {
	m, err := newModel(cfg.ScaleFactor, cfg.Seed)
	if err != nil {
		return err
	}
	shard, shards, err := shardOf(cfg)
	if err != nil {
		return err
	}
	return m.eachPerson(context.Background(), shard, shards, func(p *personRec) error { return fn(p.person()) })
}
