// RocksDB's SstFileReader behind the C interface of sstcheck.h.

#include "sstcheck.h"

#include <rocksdb/iterator.h>
#include <rocksdb/options.h>
#include <rocksdb/slice.h>
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/table_properties.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

namespace {

char* copy_string(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  std::memcpy(p, s.data(), s.size());
  p[s.size()] = '\0';
  return p;
}

void set_bad_key(nova_sst_result* out, int problem, const rocksdb::Slice& key) {
  out->problem = problem;
  out->bad_key = static_cast<char*>(std::malloc(key.size() + 1));
  std::memcpy(out->bad_key, key.data(), key.size());
  out->bad_key_len = key.size();
}

// allowed reports whether key starts with prefix and continues with an
// allowed kind byte.
bool allowed(const rocksdb::Slice& key, const char* prefix, size_t prefix_len,
             const unsigned char* kinds) {
  if (key.size() <= prefix_len || std::memcmp(key.data(), prefix, prefix_len) != 0) {
    return false;
  }
  return kinds[static_cast<unsigned char>(key.data()[prefix_len])] != 0;
}

}  // namespace

extern "C" void nova_sst_check(const char* path, const char* prefix, size_t prefix_len,
                               const unsigned char* allowed_kinds, int full,
                               nova_sst_result* out) {
  std::memset(out, 0, sizeof(*out));
  rocksdb::Options options;
  rocksdb::SstFileReader reader(options);
  rocksdb::Status s = reader.Open(path);
  if (s.ok() && full) {
    s = reader.VerifyChecksum();
  }
  if (!s.ok()) {
    out->problem = NOVA_SST_UNREADABLE;
    out->err = copy_string(s.ToString());
    return;
  }
  std::shared_ptr<const rocksdb::TableProperties> props = reader.GetTableProperties();
  out->num_entries = props->num_entries;
  out->num_deletions = props->num_deletions;
  out->num_range_deletions = props->num_range_deletions;
  out->num_merge_operands = props->num_merge_operands;
  out->comparator = copy_string(props->comparator_name);
  if (props->comparator_name != rocksdb::BytewiseComparator()->Name()) {
    out->problem = NOVA_SST_COMPARATOR;
    return;
  }
  // Only puts: the iterator below shows what a deletion hides, not the
  // deletion, whose key could be anything.
  if (props->num_deletions != 0 || props->num_range_deletions != 0 ||
      props->num_merge_operands != 0) {
    out->problem = NOVA_SST_NOT_PUTS;
    return;
  }
  rocksdb::ReadOptions ro;
  ro.verify_checksums = true;
  ro.fill_cache = false;
  std::unique_ptr<rocksdb::Iterator> it(reader.NewIterator(ro));
  if (!full) {
    for (int last = 0; last < 2; last++) {
      if (last) {
        it->SeekToLast();
      } else {
        it->SeekToFirst();
      }
      if (!it->Valid()) {
        break;
      }
      out->keys++;
      if (!allowed(it->key(), prefix, prefix_len, allowed_kinds)) {
        set_bad_key(out, NOVA_SST_FOREIGN_KEY, it->key());
        return;
      }
    }
  } else {
    std::string prev;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      rocksdb::Slice key = it->key();
      if (!allowed(key, prefix, prefix_len, allowed_kinds)) {
        set_bad_key(out, NOVA_SST_FOREIGN_KEY, key);
        return;
      }
      if (out->keys > 0 && key.compare(rocksdb::Slice(prev)) <= 0) {
        set_bad_key(out, NOVA_SST_UNORDERED, key);
        return;
      }
      prev.assign(key.data(), key.size());
      out->keys++;
    }
  }
  if (!it->status().ok()) {
    out->problem = NOVA_SST_UNREADABLE;
    out->err = copy_string(it->status().ToString());
    return;
  }
  if (out->keys == 0) {
    out->problem = NOVA_SST_EMPTY;
    return;
  }
  if (full && out->keys != props->num_entries) {
    out->problem = NOVA_SST_COUNT;
  }
}

extern "C" void nova_sst_result_free(nova_sst_result* r) {
  std::free(r->bad_key);
  std::free(r->comparator);
  std::free(r->err);
  std::memset(r, 0, sizeof(*r));
}
