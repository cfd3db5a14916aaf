// C interface of sstcheck.cc: what package sstcheck asks of RocksDB's
// SstFileReader, which the RocksDB C API (7.8.3) does not offer.
#ifndef NOVA_SSTCHECK_H
#define NOVA_SSTCHECK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// What nova_sst_check found. problem is one of the NOVA_SST_* codes;
// bad_key (malloc'd, or NULL) is the key it is about.
typedef struct {
  int problem;
  uint64_t keys;             // keys read
  uint64_t num_entries;      // the file's own count (table properties)
  uint64_t num_deletions;    // point deletions, single deletes included
  uint64_t num_range_deletions;
  uint64_t num_merge_operands;
  char* bad_key;
  size_t bad_key_len;
  char* comparator;          // the file's comparator name (malloc'd)
  char* err;                 // RocksDB's error (malloc'd), with NOVA_SST_UNREADABLE
} nova_sst_result;

enum {
  NOVA_SST_OK = 0,
  NOVA_SST_UNREADABLE = 1,    // not an SST file RocksDB can open, or corrupt
  NOVA_SST_COMPARATOR = 2,    // not written with the bytewise comparator
  NOVA_SST_NOT_PUTS = 3,      // holds deletions, range deletions or merges
  NOVA_SST_FOREIGN_KEY = 4,   // a key outside the prefix or of a kind not allowed
  NOVA_SST_UNORDERED = 5,     // keys not strictly increasing
  NOVA_SST_COUNT = 6,         // keys read differ from the file's own count
  NOVA_SST_EMPTY = 7,         // no keys
};

// nova_sst_check opens the SST file at path and checks that it holds
// only puts, under the bytewise comparator, of keys that start with
// prefix and whose byte at prefix_len is a kind with allowed_kinds[kind]
// set (256 entries). With full set it verifies every block's checksum
// and reads every key (each checked, in strictly increasing order, as
// many as the file says); otherwise it reads the first and the last key
// only. The caller frees the result's strings with nova_sst_result_free.
void nova_sst_check(const char* path, const char* prefix, size_t prefix_len,
                    const unsigned char* allowed_kinds, int full,
                    nova_sst_result* out);

void nova_sst_result_free(nova_sst_result* r);

#ifdef __cplusplus
}
#endif

#endif
