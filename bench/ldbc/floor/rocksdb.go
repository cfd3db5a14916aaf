package floor

import (
	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/storaged"
)

// The floor opens its RocksDB with storaged's own options builder: the
// block cache, full bloom filters with whole keys, the 17-byte fixed
// prefix extractor (prefix blooms in SST files and memtables) and the
// compression per level are what reads depend on, and a floor with other
// options would measure another store.

// withDefaults fills the zero fields of o from storaged's defaults.
func withDefaults(o storaged.RocksDBOptions) (storaged.RocksDBOptions, error) {
	return o.WithDefaults()
}

// rocksDBOptions builds the options as storaged does. The caller destroys
// both results after opening.
func rocksDBOptions(o storaged.RocksDBOptions, cache *grocksdb.Cache) (*grocksdb.Options, *grocksdb.BlockBasedTableOptions, error) {
	return storaged.NewRocksDBOptions(o, cache)
}
