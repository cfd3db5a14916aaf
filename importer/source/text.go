package source

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/gzip"
)

// maxRecordBytes bounds one line and one multi-line csv record (a variable
// for tests).
var maxRecordBytes = 64 << 20

// readBufSize is lineReader's initial buffer (a variable for tests).
var readBufSize = 1 << 20

const (
	gzipBufSize  = 256 << 10 // bufio under a gzip stream
	longPrefix   = 1 << 10   // bytes of an over-long line kept for its error record
	ctxCheckMask = 1<<16 - 1 // check ctx every 64Ki skipped lines
)

// blank marks the bytes snap separates fields with.
var blank = [256]bool{' ': true, '\t': true, '\r': true, '\v': true, '\f': true}

// openText opens a text file, decompressing it if it is gzip; counted
// adds the file's bytes read to BytesRead.
func (s *Source) openText(path string, counted bool) (io.Reader, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("source: %w", err)
	}
	var gz bool
	if s.opts.Gzip != nil {
		gz = *s.opts.Gzip
	} else if strings.HasSuffix(strings.ToLower(path), ".gz") {
		gz = true
	}
	if !gz && (s.opts.Gzip == nil) {
		var magic [2]byte
		if n, _ := f.ReadAt(magic[:], 0); n == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
			gz = true
		}
	}
	if !gz {
		var head [10]byte
		n, _ := f.ReadAt(head[:], 0)
		if c := unsupportedCompression(path, head[:n]); c != "" {
			f.Close()
			return nil, nil, fmt.Errorf("source: %s: compressed with %s, which the importer does not read: decompress it, or write gzip (Spark: option compression=gzip)", path, c)
		}
	}
	var r io.Reader = f
	if counted {
		r = countingReader{r: f, n: &s.done}
	}
	if !gz {
		return r, func() { f.Close() }, nil
	}
	br := bufio.NewReaderSize(r, gzipBufSize)
	zr, err := gzip.NewReader(br)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("source: %s: line 1: gzip: %w", path, err)
	}
	return zr, func() { zr.Close(); f.Close() }, nil
}

// unsupportedCompression names the compression of a file the importer
// cannot decompress, by its extension or its first bytes; "" for none.
// Read as text, such a file would be a flood of garbage rows.
func unsupportedCompression(path string, head []byte) string {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".bz2", ".zst", ".zstd", ".lz4", ".snappy", ".deflate", ".xz", ".zip", ".br", ".lzo", ".7z":
		return ext[1:]
	}
	for _, m := range compressionMagic {
		if bytes.HasPrefix(head, m.magic) {
			return m.name
		}
	}
	// bzip2: "BZh", the block size digit, then a block header's magic.
	if len(head) >= 10 && string(head[:3]) == "BZh" && head[3] >= '1' && head[3] <= '9' &&
		string(head[4:10]) == "\x31\x41\x59\x26\x53\x59" {
		return "bzip2"
	}
	return ""
}

// compressionMagic are the first bytes of compressed formats; none of them
// can begin a text file (each holds a control byte or, for bzip2, the
// block header's digits of pi).
var compressionMagic = []struct {
	name  string
	magic []byte
}{
	{"zstd", []byte{0x28, 0xb5, 0x2f, 0xfd}},
	{"xz", []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}},
	{"lz4", []byte{0x04, 0x22, 0x4d, 0x18}},
	{"zip", []byte{'P', 'K', 0x03, 0x04}},
	{"snappy", []byte{0xff, 0x06, 0x00, 0x00, 's', 'N', 'a', 'P', 'p', 'Y'}},
}

// readText delivers the records of one text file.
func (s *Source) readText(b *batcher, path, format string, skip int64) error {
	rd, closeFn, err := s.openText(path, true)
	if err != nil {
		return err
	}
	defer closeFn()
	t := s.newTextReader(b, rd, path, format, skip)
	err = t.run()
	if len(t.lr.buf) <= 4*readBufSize {
		b.lineBuf = t.lr.buf // reused by the next file
	}
	return err
}

// textHeader reads the header record of one text file.
func (s *Source) textHeader(path, format string) ([]string, error) {
	rd, closeFn, err := s.openText(path, false)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	b := newBatcher(nil, 1, nil, false)
	t := s.newTextReader(b, rd, path, format, 0)
	t.headerOnly = true
	if err := t.run(); err != nil && err != errHeaderDone {
		return nil, err
	}
	return t.header, nil
}

var errHeaderDone = errors.New("header read")

func (s *Source) newTextReader(b *batcher, rd io.Reader, path, format string, skip int64) *textReader {
	t := &textReader{
		b:          b,
		lr:         lineReader{rd: rd, buf: b.lineBuf, max: maxRecordBytes, bom: true},
		path:       path,
		snap:       format == FormatSNAP,
		delim:      s.delimiter(format),
		lazy:       s.opts.LazyQuotes,
		trim:       s.opts.TrimSpace,
		fpr:        s.opts.FieldsPerRecord,
		needHeader: s.opts.Header,
		skip:       skip,
	}
	b.lineBuf = nil
	if len(t.lr.buf) < readBufSize {
		t.lr.buf = make([]byte, readBufSize)
	}
	if s.opts.Comment != "" {
		t.comment = []byte(s.opts.Comment)
	}
	return t
}

// textReader parses the lines of one file into records.
type textReader struct {
	b     *batcher
	lr    lineReader
	path  string
	snap  bool
	delim byte
	lazy  bool
	trim  bool
	fpr   int
	skip  int64

	comment    []byte
	needHeader bool
	headerOnly bool
	header     []string

	raw   []byte // text of the multi-line record being parsed
	spans []span // its lines after the first, in raw
	lines int    // lines seen, for ctx checks while skipping
}

func (t *textReader) run() error {
	for {
		line, nl, ok := t.lr.next()
		if !ok {
			break
		}
		if len(line) == 0 {
			continue
		}
		var err error
		if t.snap {
			err = t.snapLine(line)
		} else {
			err = t.csvLine(line, nl)
		}
		if err != nil {
			return err
		}
	}
	if err := t.lr.err; err != nil {
		return fmt.Errorf("source: %s: line %d: %w", t.path, t.lr.realNo+1, err)
	}
	return nil
}

// skipping reports whether the next record is to be skipped, checking ctx
// now and then while it is.
func (t *textReader) skipping() (bool, error) {
	if t.b.next >= t.skip {
		return false, nil
	}
	t.lines++
	if t.lines&ctxCheckMask == 0 && t.b.ctx != nil {
		return true, t.b.ctx.Err()
	}
	return true, nil
}

func (t *textReader) parseErr(start, line int64, col int, err error) *ParseError {
	return &ParseError{File: t.path, StartLine: start, Line: line, Column: col, Err: err}
}

// finish commits (or skips) the record whose fields are in the batcher, or
// takes them as the header.
func (t *textReader) finish(no int64, perr *ParseError, skip bool) error {
	b := t.b
	if t.needHeader {
		t.needHeader = false
		t.header = make([]string, b.fields())
		for i := range t.header {
			t.header[i] = string(b.fieldBytes(i))
		}
		b.drop()
		if t.headerOnly {
			return errHeaderDone
		}
		return nil
	}
	if perr == nil && t.fpr > 0 && b.fields() != t.fpr {
		perr = t.parseErr(no, no, 1, csv.ErrFieldCount)
	}
	if skip {
		b.skipped()
		return nil
	}
	if perr != nil {
		return b.commit(t.path, no, perr)
	}
	return b.commit(t.path, no, nil)
}

// longLine delivers an over-long line as an error record.
func (t *textReader) longLine(prefix []byte) error {
	no := t.lr.no
	if t.comment != nil && bytes.HasPrefix(prefix, t.comment) {
		return nil
	}
	skip, err := t.skipping()
	if err != nil {
		return err
	}
	t.b.field(prefix)
	if t.needHeader {
		return t.finish(no, nil, false)
	}
	return t.finish(no, t.parseErr(no, no, 0, ErrTooLong), skip)
}

func (t *textReader) snapLine(line []byte) error {
	if t.lr.long {
		return t.longLine(line)
	}
	i := 0
	for i < len(line) && blank[line[i]] {
		i++
	}
	if i == len(line) || line[i] == '#' || line[i] == '%' {
		return nil
	}
	if t.comment != nil && bytes.HasPrefix(line[i:], t.comment) {
		return nil
	}
	no := t.lr.no
	skip, err := t.skipping()
	if err != nil {
		return err
	}
	if skip && !t.needHeader {
		t.b.next++
		return nil
	}
	b := t.b
	for {
		j := i
		for j < len(line) && !blank[line[j]] {
			j++
		}
		b.field(line[i:j])
		for j < len(line) && blank[line[j]] {
			j++
		}
		if j == len(line) {
			break
		}
		i = j
	}
	return t.finish(no, nil, false)
}

func (t *textReader) csvLine(line []byte, nl bool) error {
	if t.lr.long {
		return t.longLine(line)
	}
	if t.comment != nil && bytes.HasPrefix(line, t.comment) {
		return nil
	}
	if t.trim && len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	no := t.lr.no
	skip, err := t.skipping()
	if err != nil {
		return err
	}
	skip = skip && !t.needHeader
	if bytes.IndexByte(line, '"') >= 0 {
		return t.slowRecord(line, nl, no, skip)
	}
	if skip {
		t.b.next++
		return nil
	}
	// Fast path: no quote, one line.
	b, d := t.b, t.delim
	if t.trim {
		for {
			i := bytes.IndexByte(line, d)
			if i < 0 {
				b.field(bytes.TrimSpace(line))
				break
			}
			b.field(bytes.TrimSpace(line[:i]))
			line = line[i+1:]
		}
	} else {
		for {
			i := bytes.IndexByte(line, d)
			if i < 0 {
				b.field(line)
				break
			}
			b.field(line[:i])
			line = line[i+1:]
		}
	}
	return t.finish(no, nil, skip)
}

// slowRecord parses a record holding a quote, possibly over several lines,
// and delivers it.
func (t *textReader) slowRecord(line []byte, nl bool, no int64, skip bool) error {
	perr, resync := t.parseQuoted(line, nl, no)
	if t.lr.err != nil {
		t.b.drop()
		return nil // run reports the I/O error
	}
	if perr != nil {
		t.b.drop()
		if resync {
			// The fault is inside a quoted field opened on an earlier line,
			// most likely a missing closing quote: the record is its first
			// line only, and parsing goes on with the next line rather than
			// swallowing the rest of the file.
			first := len(t.raw)
			if len(t.spans) > 0 {
				first = t.spans[0].s - 1
			}
			t.b.field(t.raw[:first])
			t.lr.pushBack(t.raw, t.spans)
		} else {
			t.b.field(t.raw)
		}
	}
	return t.finish(no, perr, skip)
}

// parseQuoted parses one csv record with encoding/csv's semantics into the
// batcher's current record. It reads further lines while a quoted field goes
// on. On a fault it returns the error, and resync when the fault lies in a
// quoted field that began on an earlier line. t.raw and t.spans hold the
// record's text. An I/O error is left in t.lr.err.
func (t *textReader) parseQuoted(line []byte, nl bool, start int64) (*ParseError, bool) {
	b, d := t.b, t.delim
	t.raw = append(t.raw[:0], line...)
	t.spans = t.spans[:0]
	lineNo := start
	cur, rest := line, line
	col := func() int { return len(cur) - len(rest) + 1 }
fields:
	for {
		if t.trim {
			rest = trimLeft(rest, d)
		}
		if len(rest) == 0 || rest[0] != '"' {
			// Unquoted field.
			i := bytes.IndexByte(rest, d)
			f := rest
			if i >= 0 {
				f = rest[:i]
			}
			if !t.lazy {
				if j := bytes.IndexByte(f, '"'); j >= 0 {
					return t.parseErr(start, lineNo, col()+j, csv.ErrBareQuote), false
				}
			}
			if t.trim {
				f = bytes.TrimSpace(f)
			}
			b.field(f)
			if i < 0 {
				break fields
			}
			rest = rest[i+1:]
			continue
		}
		// Quoted field.
		fieldLine := lineNo
		rest = rest[1:]
		for {
			if i := bytes.IndexByte(rest, '"'); i >= 0 {
				b.put(rest[:i])
				rest = rest[i+1:]
				if len(rest) == 0 { // `"` at end of line
					b.end()
					break fields
				}
				switch c := rest[0]; {
				case c == '"': // `""`
					b.putByte('"')
					rest = rest[1:]
					continue
				case c == d: // `",`
					rest = rest[1:]
					b.end()
					continue fields
				}
				if t.trim { // blanks after the closing quote
					k := 0
					for k < len(rest) && isSpace(rest[k]) && rest[k] != d {
						k++
					}
					if k == len(rest) {
						b.end()
						break fields
					}
					if rest[k] == d {
						b.end()
						rest = rest[k+1:]
						continue fields
					}
				}
				if t.lazy {
					b.putByte('"')
					continue
				}
				return t.parseErr(start, lineNo, col()-1, csv.ErrQuote), fieldLine < lineNo
			}
			// The line ends inside the quotes: the field goes on.
			b.put(rest)
			var next []byte
			ok := nl
			if ok {
				b.putByte('\n')
				next, nl, ok = t.lr.next()
			}
			if !ok { // end of file (or I/O error) inside the quotes
				if t.lr.err != nil {
					return nil, false
				}
				if !t.lazy {
					return t.parseErr(start, lineNo, len(cur)+1, csv.ErrQuote), fieldLine < lineNo
				}
				b.end()
				break fields
			}
			lineNo = t.lr.no
			t.raw = append(t.raw, '\n')
			t.spans = append(t.spans, span{s: len(t.raw), e: len(t.raw) + len(next), nl: nl, long: t.lr.long, no: lineNo})
			t.raw = append(t.raw, next...)
			if t.lr.long || len(t.raw) > maxRecordBytes {
				return t.parseErr(start, lineNo, 0, ErrTooLong), true
			}
			cur, rest = next, next
		}
	}
	return nil, false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

func trimLeft(p []byte, d byte) []byte {
	for len(p) > 0 && isSpace(p[0]) && p[0] != d {
		p = p[1:]
	}
	return p
}

// span is one line of a multi-line record in textReader.raw.
type span struct {
	s, e int
	nl   bool  // the line ended with a newline
	long bool  // the line was over-long; s:e is its prefix
	no   int64 // its line number
}

// lineReader splits a stream into lines without their "\n" or "\r\n". It
// reads in large blocks into one buffer and hands out slices of it, valid
// until the next call.
type lineReader struct {
	rd     io.Reader
	buf    []byte
	r, w   int // unread data is buf[r:w]
	scan   int // buf[r:scan] holds no '\n'
	eof    bool
	err    error // read error other than io.EOF
	max    int
	bom    bool  // strip a UTF-8 byte order mark from the first line
	realNo int64 // lines read from rd
	no     int64 // number of the line last returned
	long   bool  // the line last returned was over-long (only its prefix returned)

	back      []byte // lines pushed back, returned before reading on
	backSpans []span
	backPos   int
}

// next returns the next line, whether it ended with a newline, and false at
// the end of the stream or on a read error (then in lr.err).
func (lr *lineReader) next() ([]byte, bool, bool) {
	lr.long = false
	if lr.backPos < len(lr.backSpans) {
		sp := lr.backSpans[lr.backPos]
		lr.backPos++
		lr.no, lr.long = sp.no, sp.long
		return lr.back[sp.s:sp.e], sp.nl, true
	}
	if lr.backSpans != nil {
		lr.back, lr.backSpans, lr.backPos = nil, nil, 0
	}
	for {
		if i := bytes.IndexByte(lr.buf[lr.scan:lr.w], '\n'); i >= 0 {
			end := lr.scan + i
			line := lr.buf[lr.r:end]
			lr.r = end + 1
			lr.scan = lr.r
			return lr.line(line), true, true
		}
		lr.scan = lr.w
		if lr.eof || lr.err != nil {
			if lr.r < lr.w && lr.err == nil {
				line := lr.buf[lr.r:lr.w]
				lr.r = lr.w
				return lr.line(line), false, true
			}
			return nil, false, false
		}
		if !lr.fill() {
			return lr.discardLong()
		}
	}
}

func (lr *lineReader) line(p []byte) []byte {
	lr.realNo++
	lr.no = lr.realNo
	if lr.bom {
		lr.bom = false
		p = bytes.TrimPrefix(p, []byte("\xef\xbb\xbf"))
	}
	if n := len(p); n > 0 && p[n-1] == '\r' {
		p = p[:n-1]
	}
	return p
}

// fill reads more data; false when the buffer is full of one line that may
// not grow further.
func (lr *lineReader) fill() bool {
	if lr.r > 0 {
		n := copy(lr.buf, lr.buf[lr.r:lr.w])
		lr.scan -= lr.r
		lr.w = n
		lr.r = 0
	}
	if lr.w == len(lr.buf) {
		if len(lr.buf) >= lr.max {
			return false
		}
		nb := make([]byte, min(2*len(lr.buf), lr.max))
		copy(nb, lr.buf[:lr.w])
		lr.buf = nb
	}
	n, err := lr.rd.Read(lr.buf[lr.w:])
	lr.w += n
	if err == io.EOF {
		lr.eof = true
	} else if err != nil {
		lr.err = err
	}
	return true
}

// discardLong skips the rest of an over-long line and returns its prefix.
func (lr *lineReader) discardLong() ([]byte, bool, bool) {
	prefix := append([]byte(nil), lr.buf[:min(longPrefix, lr.w)]...)
	lr.r, lr.w, lr.scan = 0, 0, 0
	for {
		n, err := lr.rd.Read(lr.buf)
		if i := bytes.IndexByte(lr.buf[:n], '\n'); i >= 0 {
			lr.r, lr.w, lr.scan = i+1, n, i+1
			if err == io.EOF {
				lr.eof = true
			} else if err != nil {
				lr.err = err
			}
			p := lr.line(prefix)
			lr.long = true
			return p, true, true
		}
		if err == io.EOF {
			lr.eof = true
			p := lr.line(prefix)
			lr.long = true
			return p, false, true
		}
		if err != nil {
			lr.err = err
			return nil, false, false
		}
	}
}

// pushBack makes the lines spans of raw (copied) the next ones returned,
// before any still pushed back.
func (lr *lineReader) pushBack(raw []byte, spans []span) {
	if len(spans) == 0 {
		return
	}
	var back []byte
	bs := make([]span, 0, len(spans)+len(lr.backSpans)-lr.backPos)
	for _, sp := range spans {
		s := len(back)
		back = append(back, raw[sp.s:sp.e]...)
		bs = append(bs, span{s: s, e: len(back), nl: sp.nl, long: sp.long, no: sp.no})
	}
	for _, sp := range lr.backSpans[lr.backPos:] {
		s := len(back)
		back = append(back, lr.back[sp.s:sp.e]...)
		bs = append(bs, span{s: s, e: len(back), nl: sp.nl, long: sp.long, no: sp.no})
	}
	lr.back, lr.backSpans, lr.backPos = back, bs, 0
}
