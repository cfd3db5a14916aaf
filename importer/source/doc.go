// Package source turns one configured input of the bulk importer into a
// stream of records.
//
// # Sources
//
// A source is everything one entry of the importer's YAML config points at
// through its path, read as one sequence of records:
//
//   - a single file;
//   - a glob (data/person_*.csv);
//   - a directory, e.g. Spark output (part-00000-….csv, part-….csv.gz,
//     part-….snappy.parquet) or a GraphAr chunk folder (chunk0, chunk1, …,
//     chunk10). Hidden files (".x"), files whose name starts with "_"
//     (_SUCCESS, _committed_…) and checksum files (*.crc) are ignored;
//     sub-directories are descended into (GraphAr adj_list/part0/chunk0, Spark
//     key=value/ partitions). The values of key=value directories (Spark's
//     partitionBy, Hive partitions; URL-escaped, __HIVE_DEFAULT_PARTITION__
//     for NULL) are not in the files: every record gets them after its own
//     fields, as Spark reads such a table back, and Columns names them.
//
// Files of a directory or a glob are read in natural order: runs of digits
// compare as numbers, so chunk2 comes before chunk10 and part-00009 before
// part-00010, and the rest compares byte-wise.
//
// Formats are csv (RFC 4180 quoting, any one-byte delimiter), tsv (csv with a
// tab), snap (SNAP edge lists: fields separated by any run of spaces and
// tabs, '#' and '%' comment lines, no quoting) and parquet. Text files may be
// gzip-compressed; that is known from a .gz extension or from the gzip magic
// bytes. CRLF line ends are accepted everywhere. See [Options] for how the
// format of a file is chosen.
//
// # Records and their positions
//
// [Source.Read] delivers [Record]s in batches. Each record carries where it
// came from: the file, its line in that file, and its Index in the whole
// source.
//
//   - Line is 1-based and counts every physical line of the file, header,
//     comment and blank lines included, so it is what an editor or `sed -n`
//     shows. A csv record whose quoted field holds newlines spans several
//     lines; Line is its first. For parquet, Line is the 1-based row number in
//     the file.
//   - Index is the 0-based number of the record in the whole source (over
//     all its files, in order). Headers, comments and blank lines are not
//     records; malformed records are. Index is what the skip argument of Read
//     counts, so an importer that resumes passes the number of records it has
//     finished, and it is the GraphAr vertex index that
//     [Options.RowIndexColumn] appends.
//
// # Errors
//
// A malformed row (a bare quote in an unquoted field, an unterminated quoted
// field, a wrong field count, an over-long line) is a fault of that row only:
// it is delivered as a record whose Err is a *[ParseError] (which names the
// file, the record's first line, the line and column of the fault, and wraps
// csv.ErrBareQuote, csv.ErrQuote, csv.ErrFieldCount or [ErrTooLong]), and
// reading goes on with the next record. The importer writes such records to
// its failed-rows file; a data set with a few bad rows still loads. Malformed
// records take an Index like any other so that resume positions stay stable.
//
// An I/O failure (a file that cannot be opened or read, a corrupt gzip
// stream, an unreadable parquet page) is not about a row: nothing after it in
// that file can be trusted, so Read stops and returns an error naming the file
// and the line (or parquet row) it had reached. Records completed before the
// failure are delivered first.
package source
