package storaged

import "testing"

func TestParseRocksStatistics(t *testing.T) {
	sums := map[string]uint64{"rocksdb.block.cache.hit": 5}
	parseTickers("rocksdb.block.cache.miss COUNT : 7\nrocksdb.block.cache.hit COUNT : 12\n"+
		"rocksdb.db.get.micros P50 : 1.000000 P95 : 2.000000 COUNT : 3 SUM : 4\nrocksdb.stall.micros COUNT : 2500000", sums)
	if sums["rocksdb.block.cache.hit"] != 17 || sums["rocksdb.block.cache.miss"] != 7 || sums["rocksdb.stall.micros"] != 2500000 {
		t.Fatalf("tickers %v", sums)
	}
	if _, ok := sums["rocksdb.db.get.micros P50 : 1.000000 P95 : 2.000000"]; ok {
		t.Fatal("a histogram line was read as a ticker")
	}
	if got := parseStallSeconds("Uptime(secs): 10.0\nCumulative stall: 00:01:2.500 H:M:S, 0.1 percent\nInterval stall: 00:00:0.000 H:M:S"); got != 62.5 {
		t.Fatalf("stall %v, want 62.5", got)
	}
	if got := parseStallSeconds("no stall line"); got != 0 {
		t.Fatalf("stall %v, want 0", got)
	}
}
