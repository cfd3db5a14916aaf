package e2e

import (
	"testing"

	"github.com/novagraph/novagraph/proto/graphpb"
)

// TestTypes covers the calendar types (date, time, datetime, duration) as
// property columns — DESCRIBE, INSERT, FETCH, filters pushed to storage and
// kept in graphd, an index, UPDATE, ALTER — and the scalar functions through
// YIELD.
func TestTypes(t *testing.T) {
	s := startSpace(t, "types", 3)
	exec(t, s, `CREATE TAG ev(name string, d date, t time NULL, at datetime NULL, du duration NULL, ts timestamp NULL, day date DEFAULT date("2000-01-01"))`)
	exec(t, s, `CREATE EDGE met(day date, at datetime NULL)`)
	expectRows(t, s, `DESCRIBE TAG ev`,
		"name|string|YES|NULL|NULL", "d|date|YES|NULL|NULL", "t|time|YES|NULL|NULL", "at|datetime|YES|NULL|NULL",
		"du|duration|YES|NULL|NULL", "ts|timestamp|YES|NULL|NULL", "day|date|YES|2000-01-01|NULL")
	expectRows(t, s, `DESCRIBE EDGE met`, "day|date|YES|NULL|NULL", "at|datetime|YES|NULL|NULL")

	exec(t, s, `INSERT VERTEX ev(name, d, t, at, du, ts) VALUES `+
		`"a":("A", date("2024-01-02"), time("12:34:56"), datetime("2024-01-02T12:34:56"), duration("P1DT2H"), timestamp("2024-01-02T00:00:00")), `+
		`"b":("B", date("2023-06-30"), time("08:00:00.5"), datetime("2023-06-30 23:59:59.999999+00:00"), duration("{days: 1, hours: 2}"), timestamp(1700000000)), `+
		`"c":("C", date("{year: 2024, month: 2, day: 29}"), NULL, NULL, NULL, NULL)`)
	exec(t, s, `INSERT EDGE met(day, at) VALUES "a"->"b":(date("2024-01-05"), datetime("2024-01-05T10:00:00")), "a"->"c":(date("2023-12-31"), NULL), "b"->"c":(date("2024-03-01"), datetime("2024-03-01T00:00:00.000001"))`)

	// FETCH prints the values as NebulaGraph does.
	expectRows(t, s, `FETCH PROP ON ev "a", "c"`,
		"a|A|2024-01-02|12:34:56.000000|2024-01-02T12:34:56.000000|P0MT93600.000000000S|1704153600|2000-01-01",
		"c|C|2024-02-29|NULL|NULL|NULL|NULL|2000-01-01")
	expectRows(t, s, `FETCH PROP ON ev "b" YIELD ev.t, ev.at, ev.du == duration("P1DT2H"), ev.ts`,
		"08:00:00.500000|2023-06-30T23:59:59.999999|true|1700000000")
	// Attributes, arithmetic, conversions of stored values.
	expectRows(t, s, `FETCH PROP ON ev "a" YIELD ev.d.year, ev.d.month, ev.d.day, ev.t.hour, ev.at.second, ev.du.days, ev.du.hours`,
		"2024|1|2|12|56|1|2")
	expectRows(t, s, `FETCH PROP ON ev "a" YIELD ev.d + duration("P1M"), ev.d - date("2024-01-01"), ev.at - datetime("2024-01-01T00:00:00"), ev.t + duration("PT12H"), toString(ev.d), "on " + ev.d`,
		"2024-02-02|1|P0MT131696.000000000S|00:34:56.000000|2024-01-02|on 2024-01-02")
	expectRows(t, s, `FETCH PROP ON ev "a" YIELD date(ev.at), time(ev.at), datetime(ev.d), timestamp(ev.at), ev.ts > timestamp("2024-01-01T00:00:00")`,
		"2024-01-02|12:34:56.000000|2024-01-02T00:00:00.000000|1704198896|true")

	// Filters: pushed to storage (deterministic), or kept in graphd.
	expectRows(t, s, `GO FROM "a", "b" OVER met WHERE met.day >= date("2024-01-01") YIELD src(edge), dst(edge), met.day`,
		"a|b|2024-01-05", "b|c|2024-03-01")
	expectRows(t, s, `GO FROM "a", "b" OVER met WHERE met.at < datetime("2024-03-01T00:00:00.000001") YIELD dst(edge), met.at`,
		"b|2024-01-05T10:00:00.000000")
	expectRows(t, s, `GO FROM "a", "b" OVER met WHERE met.day < date() AND rand() < 2 YIELD dst(edge)`, "b", "c", "c")
	expectRows(t, s, `GO FROM "a" OVER met WHERE $$.ev.d > date("2024-01-01") YIELD dst(edge), $$.ev.d`, "c|2024-02-29")
	expectRows(t, s, `GO FROM "a", "b" OVER met YIELD met.day AS dd | YIELD $-.dd WHERE $-.dd < date("2024-01-06")`, "2023-12-31", "2024-01-05")
	expectRows(t, s, `GO FROM "a" OVER met WHERE met.at IS NULL YIELD dst(edge)`, "c")

	// An index on a date column, scanned by a range of constant dates.
	exec(t, s, `CREATE TAG INDEX ev_d ON ev(d)`)
	exec(t, s, `REBUILD TAG INDEX ev_d`)
	expectRows(t, s, `LOOKUP ON ev WHERE ev.d >= date("2024-01-01") YIELD id(vertex), ev.d`, "a|2024-01-02", "c|2024-02-29")
	expectRows(t, s, `LOOKUP ON ev WHERE ev.d == date("2023-06-30") YIELD ev.name`, "B")
	expectRows(t, s, `LOOKUP ON ev WHERE ev.d < date() AND ev.d > date("2024-01-02") YIELD ev.name`, "C")
	expectError(t, s, `LOOKUP ON ev WHERE ev.d < date() AND rand() < 0.5`, graphpb.QueryErrorCode_E_SEMANTIC, "random per row")
	expectError(t, s, `CREATE TAG INDEX ev_du ON ev(du)`, graphpb.QueryErrorCode_E_SEMANTIC, "DURATION")

	// UPDATE: the clock is read once, in graphd.
	expectRows(t, s, `UPDATE VERTEX ON ev "c" SET t = time("01:02:03"), at = datetime(), ts = timestamp(), du = duration("PT1S") YIELD t, at > datetime("2024-01-01T00:00:00"), ts > 1700000000, du`,
		"01:02:03.000000|true|true|P0MT1.000000000S")
	expectRows(t, s, `UPDATE VERTEX ON ev "a" SET d = d + duration("P1M") WHEN d < date("2024-02-01") YIELD d`, "2024-02-02")
	expectRows(t, s, `LOOKUP ON ev WHERE ev.d == date("2024-02-02") YIELD id(vertex)`, "a")
	expectRows(t, s, `UPDATE EDGE ON met "a"->"c" SET at = datetime(day) + duration("PT36H") YIELD at`, "2024-01-01T12:00:00.000000")

	// ALTER: rows written before read the new column's default.
	exec(t, s, `ALTER TAG ev ADD (seen datetime DEFAULT datetime("2020-01-01T00:00:00"))`)
	expectRows(t, s, `FETCH PROP ON ev "b" YIELD ev.seen, ev.seen.year`, "2020-01-01T00:00:00.000000|2020")

	// Declared widths: stored in 64 bits, kept for DESCRIBE and checked on
	// every write.
	exec(t, s, `CREATE TAG w(i8 int8 NULL, i16 int16 NULL, i32 int32 NULL, f float NULL, i int NULL, dd double NULL)`)
	expectRows(t, s, `DESCRIBE TAG w`, "i8|int8|YES|NULL|NULL", "i16|int16|YES|NULL|NULL", "i32|int32|YES|NULL|NULL",
		"f|float|YES|NULL|NULL", "i|int64|YES|NULL|NULL", "dd|double|YES|NULL|NULL")
	exec(t, s, `INSERT VERTEX w(i8, i16, i32, f, dd) VALUES "w1":(-128, 32767, -2147483648, 0.1, 0.1)`)
	expectRows(t, s, `FETCH PROP ON w "w1" YIELD w.i8, w.i16, w.i32, w.f != 0.1, abs(w.f - 0.1) < 0.000001, w.dd == 0.1`,
		"-128|32767|-2147483648|true|true|true")
	expectError(t, s, `INSERT VERTEX w(i8) VALUES "w2":(128)`, graphpb.QueryErrorCode_E_SEMANTIC, `is int8, got 128, out of its range [-128, 127]`)
	expectError(t, s, `INSERT VERTEX w(f) VALUES "w2":(1e300)`, graphpb.QueryErrorCode_E_SEMANTIC, `is float, got 1e+300, beyond its range`)
	expectError(t, s, `CREATE TAG dd(i8 int8 DEFAULT 1000, n int)`, graphpb.QueryErrorCode_E_SEMANTIC, `default 1000 is out of int8's range [-128, 127]`)
	expectError(t, s, `ALTER TAG w ADD (i16b int16 DEFAULT 70000)`, graphpb.QueryErrorCode_E_SEMANTIC, `default 70000 is out of int16's range`)

	// DEFAULT now() and datetime() are the time of each write, not of the
	// CREATE; an UPSERT's is its raft command's (whole seconds).
	exec(t, s, `CREATE TAG stamp(n int, at datetime DEFAULT datetime(), ts timestamp DEFAULT now())`)
	expectRows(t, s, `DESCRIBE TAG stamp`, "n|int64|YES|NULL|NULL", "at|datetime|YES|datetime()|NULL", "ts|timestamp|YES|now()|NULL")
	exec(t, s, `INSERT VERTEX stamp(n) VALUES "s1":(1)`)
	exec(t, s, `INSERT VERTEX stamp(n) VALUES "s2":(2)`)
	first, second := rows(t, s, `FETCH PROP ON stamp "s1" YIELD stamp.at`), rows(t, s, `FETCH PROP ON stamp "s2" YIELD stamp.at`)
	if len(first) != 1 || len(second) != 1 || !(second[0] > first[0]) {
		t.Fatalf("DEFAULT datetime() of two inserts one after the other: %q then %q, want the second later", first, second)
	}
	expectRows(t, s, `UPSERT VERTEX ON stamp "s3" SET n = 3 YIELD n, toString(at) ENDS WITH ".000000", ts >= timestamp(datetime("`+first[0]+`")) - 1`,
		"3|true|true")

	// Vertices and edges as values, as NebulaGraph 3 yields them.
	expectRows(t, s, `FETCH PROP ON ev "c" YIELD vertex AS v | YIELD id($-.v), $-.v.name, $-.v.day`, "c|C|2000-01-01")
	expectRows(t, s, `FETCH PROP ON met "a"->"b" YIELD edge AS e | YIELD src($-.e), dst($-.e), rank($-.e), $-.e.day`, "a|b|0|2024-01-05")
	expectRows(t, s, `GO FROM "a" OVER met WHERE dst(edge) == "b" YIELD edge AS e, $$ AS d, $^ AS s | YIELD type($-.e), $-.e.day, id($-.d), $-.d.name, id($-.s)`,
		"met|2024-01-05|b|B|a")
	expectRows(t, s, `GO FROM "b" OVER met REVERSELY YIELD edge AS e | YIELD src($-.e), dst($-.e)`, "a|b")
	expectRows(t, s, `LOOKUP ON ev WHERE ev.d == date("2024-02-02") YIELD vertex AS v | YIELD id($-.v), $-.v.name`, "a|A")

	// FETCH of edges whose keys come from a pipe or a variable, once per
	// input row, with the input's columns.
	expectRows(t, s, `GO FROM "a" OVER met YIELD src(edge) AS s, dst(edge) AS d, rank(edge) AS r | FETCH PROP ON met $-.s -> $-.d @ $-.r YIELD met.day, $-.d`,
		"2024-01-05|b", "2023-12-31|c")
	expectRows(t, s, `$k = GO FROM "b" OVER met YIELD src(edge) AS s, dst(edge) AS d; FETCH PROP ON met $k.s -> $k.d YIELD met.day`, "2024-03-01")
	expectRows(t, s, `YIELD "a" AS s, "zz" AS d | FETCH PROP ON met $-.s -> $-.d YIELD met.day`)
	expectRows(t, s, `FETCH PROP ON met "a" -> "b", "b" -> "c" YIELD met.day`, "2024-01-05", "2024-03-01")
	exec(t, s, `CREATE TAG simple(name string, n int NULL); INSERT VERTEX simple(name) VALUES "q":("Q")`)
	expectRows(t, s, `FETCH PROP ON simple "q" YIELD vertex`, `("q" :simple{n: __NULL__, name: "Q"})`)
	expectRows(t, s, `FETCH PROP ON met "a"->"b" YIELD edge`, `[:met "a"->"b" @0 {at: 2024-01-05T10:00:00.000000, day: 2024-01-05}]`)

	// Errors.
	// A filter storage cannot read as a boolean names the edge as written.
	expectError(t, s, `GO FROM "a" OVER met WHERE met.day YIELD dst(edge)`, graphpb.QueryErrorCode_E_EXECUTION, `filter on edge "a"->"`)
	expectError(t, s, `INSERT VERTEX ev(name, d) VALUES "x":("X", "2024-01-02")`, graphpb.QueryErrorCode_E_SEMANTIC, `property "d" is date`)
	expectError(t, s, `INSERT VERTEX ev(name, d) VALUES "x":("X", date("2024-02-30"))`, graphpb.QueryErrorCode_E_SEMANTIC, "day 30")
	expectError(t, s, `INSERT VERTEX ev(name, d) VALUES "x":("X", datetime("2024-01-02"))`, graphpb.QueryErrorCode_E_SEMANTIC, `property "d" is date`)
	expectError(t, s, `UPDATE VERTEX ON ev "a" SET t = "12:00"`, graphpb.QueryErrorCode_E_SEMANTIC, `property "t" is time`)
	expectError(t, s, `CREATE TAG bad(x date DEFAULT "2024-01-02")`, graphpb.QueryErrorCode_E_SEMANTIC, "date")
	expectError(t, s, `YIELD date("2024-01-02") + 1`, graphpb.QueryErrorCode_E_EXECUTION, "cannot apply + to DATE and INT")

	// Scalar functions.
	expectRows(t, s, `YIELD lower("AbC"), toUpper("x"), trim("  a  "), ltrim(" b"), rtrim("c "), left("hello", 2), right("hello", 3), lpad("7", 3, "0"), rpad("ab", 4, "."), substr("abcdef", 1, 3), reverse("abc")`,
		"abc|X|a|b|c|he|llo|007|ab..|bcd|cba")
	expectRows(t, s, `YIELD replace("a-b", "-", "+"), split("a,b", ","), concat("a", 1, true), concat_ws("/", "x", NULL, "y"), strcasecmp("A", "a"), size("héllo"), length([1, 2])`,
		"a+b|[a b]|a1true|x/y|0|5|2")
	expectRows(t, s, `YIELD abs(-2), ceil(1.2), floor(1.8), round(2.567, 2), sqrt(9), cbrt(8), exp(0), log(1), log2(8), log10(100), sign(-5), pow(2, 8)`,
		"2|2|1|2.57|3|2|1|0|3|2|-1|256")
	expectRows(t, s, `YIELD sin(0), cos(0), tan(0), asin(0), acos(1), atan(0), e() > 2.7, pi() < 3.15, rand() < 1, rand32(1, 2), rand64(5) < 5, hash(3)`,
		"0|1|0|0|0|0|true|true|true|1|true|3")
	expectRows(t, s, `YIELD range(1, 5, 2), head([7, 8]), last([7, 8]), tail([7, 8]), reverse([1, 2]), coalesce(NULL, 3)`,
		"[1 3 5]|7|8|[8]|[2 1]|3")
	expectRows(t, s, `YIELD toString(1.5), toInteger("42"), toFloat("2.5"), toBoolean("false"), toString(date("2024-01-02")), toString(duration("P1D"))`,
		"1.5|42|2.5|false|2024-01-02|P0MT86400.000000000S")
	expectRows(t, s, `YIELD date("2024-01-02"), time("1:2:3"), datetime("2024-01-02T03:04:05.123"), duration("P1Y2M3DT4H"), timestamp("1970-01-01T00:01:00")`,
		"2024-01-02|01:02:03.000000|2024-01-02T03:04:05.123000|P14MT273600.000000000S|60")
	expectRows(t, s, `YIELD now() > 1700000000, timestamp() > 1700000000, date() > date("2024-01-01"), datetime() > datetime("2024-01-01"), time() IS NOT NULL`,
		"true|true|true|true|true")
	expectRows(t, s, `YIELD date("2024-01-31") + duration("P1M"), datetime("2024-01-02T00:00:00") - duration("PT1S"), date("2024-03-01") - date("2024-02-01"), duration("P1D") == duration("PT24H")`,
		"2024-02-29|2024-01-01T23:59:59.000000|29|true")
	expectError(t, s, `YIELD substr("abc", -1)`, graphpb.QueryErrorCode_E_SEMANTIC, "invalid argument: the start -1 is negative")
	expectError(t, s, `YIELD lpad("a")`, graphpb.QueryErrorCode_E_SEMANTIC, "lpad() takes 3 argument(s), got 1")
	expectError(t, s, `YIELD nosuch(1)`, graphpb.QueryErrorCode_E_SEMANTIC, "unknown function nosuch")

	// hash("name") as a vid, NebulaGraph's way to INT64 vids, with its
	// values: INSERT, FETCH, GO, DELETE take it where a vid goes.
	exec(t, s, `CREATE SPACE hv(partition_num=2, replica_factor=1, vid_type=INT64)`)
	exec(t, s, `USE hv; CREATE TAG p(n string); CREATE EDGE e()`)
	exec(t, s, `INSERT VERTEX p(n) VALUES hash("x"):("X"), hash("y"):("Y")`)
	exec(t, s, `INSERT EDGE e() VALUES hash("x")->hash("y"):()`)
	expectRows(t, s, `FETCH PROP ON p hash("x") YIELD id(vertex), p.n`, "-5174332529364052081|X")
	expectRows(t, s, `GO FROM hash("x") OVER e YIELD $$.p.n`, "Y")
	exec(t, s, `DELETE VERTEX hash("y")`)
	expectRows(t, s, `FETCH PROP ON p hash("y") YIELD p.n`)
}
