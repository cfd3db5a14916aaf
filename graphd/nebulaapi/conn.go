package nebulaapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"time"

	"github.com/vesoft-inc/fbthrift/thrift/lib/go/thrift"
	"google.golang.org/grpc/peer"
)

// One connection, request by request.
//
// graphd reads each request's frame whole, and checks it, before any of
// fbthrift's code sees a byte of it; fbthrift then parses the request
// from that frame alone, with a header transport made for the one
// request. Why not let fbthrift read the connection itself:
//
//   - it would accept frames up to 1 GiB, and size strings, lists and maps
//     from what a frame declares before the bytes arrive;
//   - a header frame may ask for zlib or zstd, which it decompresses into
//     memory without a bound;
//   - its own reading keeps state across frames (read-ahead buffers, a
//     header longer than its frame), so bytes after one request's message
//     would be parsed as a next frame nobody checked.
//
// Reading a frame whole costs a copy of what fbthrift would buffer anyway;
// the frames of all connections together are bounded by
// Config.MaxBufferedBytes.
//
// Every frame of the transports served starts with its length (4 bytes,
// big-endian, the length excluded). A header-transport frame goes on with
// the magic 0x0FFF, 2 bytes of flags, a 4-byte sequence id, the header's
// length in 4-byte words (2 bytes), then the header: varints for the
// protocol id and the number of transforms, then info blocks to the end
// of the header: padding (id 0), or a count of key-value pairs (ids 1 and
// 2, the second persistent) and the pairs as varint-length strings
// (fbthrift's header.go). fbthrift sizes each string from its varint
// before reading it, so graphd reads the whole header first: transforms
// are refused (NebulaGraph's clients send none), and so is any count or
// length larger than the header's bytes.

// headerMagic starts a header-transport frame after its length.
const headerMagic = 0x0FFF

// Bounds on what a request's Thrift data may declare, as parsed
// (boundedProtocol).
const (
	// maxNesting bounds the nesting of structs, lists, sets and maps: a
	// parameter's Value holds an NList holding a list of Values, and
	// fbthrift's decoding (and skipping) recurses, so a deeply nested one
	// would overflow the stack, which no recover catches. 192 is 63
	// levels of lists in a parameter.
	maxNesting = 192
)

var (
	errRefusedFrame = errors.New("refused request")
	// aLongTimeAgo is a read deadline that ends a blocked Read at once.
	aLongTimeAgo = time.Unix(1, 0)
)

// conn is one client connection: the goroutine of serveConn owns it.
type conn struct {
	s    *Server
	nc   net.Conn
	st   *connState
	host string
	r    *bufio.Reader
	w    *bufio.Writer // to wc, flushed once per answer
	wc   *deadlineWriter
	// served counts the requests answered; the first has its own timeout.
	served int
	// frameCharge is what the request's frame is charged (charge).
	frameCharge int64
	// watchDone is closed when the watcher of the request being answered
	// has returned (watch).
	watchDone chan struct{}
}

// serveConn answers one connection's requests, one at a time, as
// NebulaGraph's clients send them.
func (s *Server) serveConn(nc net.Conn, st *connState, host string) {
	defer s.connsWG.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, nc)
		if s.perHost[host]--; s.perHost[host] <= 0 {
			delete(s.perHost, host)
		}
		s.mu.Unlock()
		nc.Close()
	}()
	wc := &deadlineWriter{c: nc, timeout: s.cfg.IOTimeout}
	c := &conn{s: s, nc: nc, st: st, host: host, r: bufio.NewReaderSize(nc, 4<<10), w: bufio.NewWriterSize(wc, 16<<10), wc: wc}
	// The sign-in's client host, as gRPC's peer gives it to graphd.
	ctx := peer.NewContext(s.base, &peer.Peer{Addr: nc.RemoteAddr(), LocalAddr: nc.LocalAddr()})
	for {
		frame, err := c.readFrame()
		if err != nil {
			if !quiet(err) {
				s.log.Info("NebulaGraph-protocol connection closed", "from", nc.RemoteAddr().String(), "err", err)
			}
			return
		}
		keepOpen, err := c.answer(ctx, frame)
		c.endRequest()
		if err != nil {
			if !quiet(err) {
				s.log.Info("NebulaGraph-protocol connection closed on an error", "from", nc.RemoteAddr().String(), "err", err)
			}
			return
		}
		if !keepOpen {
			return
		}
	}
}

// readFrame waits for the next request and reads its frame whole. From
// its first byte the request counts as running, for Stop; endRequest
// ends it.
func (c *conn) readFrame() (frame []byte, err error) {
	s := c.s
	wait := s.cfg.IdleTimeout
	if c.served == 0 {
		wait = s.cfg.FirstRequestTimeout
	}
	if err := c.nc.SetReadDeadline(time.Now().Add(wait)); err != nil {
		return nil, err
	}
	head, err := c.r.Peek(4)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	stopping := s.stopping
	if !stopping {
		c.st.busy = true
		s.requests.Add(1)
	}
	s.mu.Unlock()
	if stopping {
		return nil, errServerStopping
	}
	defer func() {
		if err != nil { // the request ends here; its frame's charge is gone
			c.endRequest()
		}
	}()
	size := int64(binary.BigEndian.Uint32(head))
	if size > int64(s.cfg.MaxFrameBytes) {
		return nil, fmt.Errorf("%w: a frame of %d bytes, over the %d this port reads (or a client that does not frame its requests: use the header or framed transport)", errRefusedFrame, size, s.cfg.MaxFrameBytes)
	}
	// The rest of a request may take a while to arrive, not for ever.
	if err := c.nc.SetReadDeadline(time.Now().Add(s.cfg.IOTimeout)); err != nil {
		return nil, err
	}
	// The frame grows as its bytes arrive, never to more than twice what
	// has arrived, and what it holds is charged to the bounds on all
	// frames being read: a declared size alone reserves nothing.
	total := 4 + size
	frame = make([]byte, 0, min(total, 4<<10))
	if err := c.charge(int64(cap(frame))); err != nil {
		return nil, err
	}
	for int64(len(frame)) < total {
		if len(frame) == cap(frame) {
			grown := min(total, 2*int64(cap(frame)))
			if err := c.charge(grown - int64(cap(frame))); err != nil {
				c.uncharge(int64(cap(frame)))
				return nil, err
			}
			frame = slices.Grow(frame, int(grown)-len(frame))
		}
		n, err := c.r.Read(frame[len(frame):min(int64(cap(frame)), total)])
		frame = frame[:len(frame)+n]
		if err != nil && int64(len(frame)) < total {
			c.uncharge(int64(cap(frame)))
			return nil, err
		}
	}
	c.frameCharge = int64(cap(frame))
	if err := checkHeader(frame); err != nil {
		c.uncharge(c.frameCharge)
		c.frameCharge = 0
		return nil, err
	}
	c.served++
	return frame, nil
}

// checkHeader refuses a header-transport frame whose header does not fit
// in it, asks for transforms, or declares more than it holds.
func checkHeader(frame []byte) error {
	if len(frame) < 6 || binary.BigEndian.Uint16(frame[4:6]) != headerMagic {
		return nil // framed binary or compact: no header
	}
	if len(frame) < 14 {
		return fmt.Errorf("%w: a header frame of %d bytes", errRefusedFrame, len(frame)-4)
	}
	end := 14 + 4*int(binary.BigEndian.Uint16(frame[12:14]))
	if end > len(frame) {
		return fmt.Errorf("%w: a header of %d bytes in a frame of %d", errRefusedFrame, end-14, len(frame)-4)
	}
	rd := bytes.NewReader(frame[14:end])
	if _, err := binary.ReadUvarint(rd); err != nil { // the protocol id
		return fmt.Errorf("%w: a header without a protocol id: %v", errRefusedFrame, err)
	}
	n, err := binary.ReadUvarint(rd)
	if err != nil {
		return fmt.Errorf("%w: a header without its transforms: %v", errRefusedFrame, err)
	}
	if n > 0 {
		return fmt.Errorf("%w: the frame asks for %d transforms (compression); this port reads none", errRefusedFrame, n)
	}
	for rd.Len() > 0 {
		id, err := binary.ReadUvarint(rd)
		if err != nil {
			return fmt.Errorf("%w: a header block without its id: %v", errRefusedFrame, err)
		}
		switch id {
		case 0: // padding
			continue
		case 1, 2: // key-value pairs, the second kind persistent
			pairs, err := binary.ReadUvarint(rd)
			if err != nil || pairs > uint64(rd.Len()) {
				return fmt.Errorf("%w: a header of %d key-value pairs in %d bytes", errRefusedFrame, pairs, rd.Len())
			}
			for range 2 * pairs {
				size, err := binary.ReadUvarint(rd)
				if err != nil || size > uint64(rd.Len()) {
					return fmt.Errorf("%w: a header string of %d bytes in %d", errRefusedFrame, size, rd.Len())
				}
				rd.Seek(int64(size), io.SeekCurrent)
			}
		default:
			return fmt.Errorf("%w: a header block of unknown kind %d", errRefusedFrame, id)
		}
	}
	return nil
}

// charge counts n more bytes of frames against the server's bound and
// the client host's share of it (a quarter), refusing what goes over.
func (c *conn) charge(n int64) error {
	s := c.s
	if s.buffered.Add(n) > s.cfg.MaxBufferedBytes {
		s.buffered.Add(-n)
		return fmt.Errorf("%w: graphd is reading %d MiB of NebulaGraph-protocol requests at once, its bound (retry)", errRefusedFrame, s.cfg.MaxBufferedBytes>>20)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hostBuffered[c.host]+n > s.cfg.MaxBufferedBytes/4 {
		s.buffered.Add(-n)
		return fmt.Errorf("%w: this client host has %d MiB of NebulaGraph-protocol requests being read, a quarter of graphd's bound (retry)", errRefusedFrame, s.cfg.MaxBufferedBytes>>22)
	}
	s.hostBuffered[c.host] += n
	return nil
}

func (c *conn) uncharge(n int64) {
	s := c.s
	s.buffered.Add(-n)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hostBuffered[c.host] -= n; s.hostBuffered[c.host] <= 0 {
		delete(s.hostBuffered, c.host)
	}
}

// endRequest marks the request over, for Stop, and releases its frame's
// charge.
func (c *conn) endRequest() {
	c.uncharge(c.frameCharge)
	c.frameCharge = 0
	c.s.mu.Lock()
	c.st.busy = false
	c.s.mu.Unlock()
	c.s.requests.Done()
}

// answer parses and runs the request in frame and writes its answer.
func (c *conn) answer(ctx context.Context, frame []byte) (keepOpen bool, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			// The generated code or the library: log, and drop the
			// connection rather than graphd.
			c.s.log.Error("NebulaGraph-protocol request panicked", "panic", r)
			keepOpen, err = false, fmt.Errorf("internal error: %v", r)
		}
	}()
	// The whole request is in frame: a client that closes the
	// connection now has given up on it, and its statement stops.
	c.watch(cancel)
	defer c.stopWatching()
	// The answer's chunks go back to the pools once it is written.
	ar := newArena(&c.s.pools)
	defer ar.release()
	ctx = withArena(ctx, ar)
	done := func() {}
	if c.s.cfg.Request != nil {
		ctx, done = c.s.cfg.Request(ctx)
	}
	defer done()
	trans := thrift.NewHeaderTransport(&frameTransport{r: bytes.NewReader(frame), w: c.w})
	proto := thrift.NewHeaderProtocol(trans)
	in := &boundedProtocol{Protocol: proto, items: int64(len(frame))}
	return thrift.ProcessContext(ctx, c.s.proc, in, proto)
}

// watch reads the connection while the request runs, and cancels it if
// the client goes away. A byte that arrives (a client that sends its next
// request early) stays buffered for the next readFrame.
func (c *conn) watch(cancel context.CancelFunc) {
	done := make(chan struct{})
	c.watchDone = done
	_ = c.nc.SetReadDeadline(time.Time{}) // a statement may run long
	go func() {
		defer close(done)
		if _, err := c.r.Peek(1); err != nil && !isTimeout(err) {
			cancel()
		}
	}()
}

// stopWatching ends the watcher, before the connection is read again.
func (c *conn) stopWatching() {
	if c.watchDone == nil {
		return
	}
	_ = c.nc.SetReadDeadline(aLongTimeAgo)
	<-c.watchDone
	c.watchDone = nil
}

// frameTransport is the transport of one request: it reads the request's
// frame and writes the answer to the connection.
type frameTransport struct {
	r *bytes.Reader
	w *bufio.Writer
}

func (t *frameTransport) Read(p []byte) (int, error)  { return t.r.Read(p) }
func (t *frameTransport) Write(p []byte) (int, error) { return t.w.Write(p) }
func (t *frameTransport) Flush() error                { return t.w.Flush() }
func (t *frameTransport) Close() error                { return nil }
func (t *frameTransport) Open() error                 { return nil }
func (t *frameTransport) IsOpen() bool                { return true }
func (t *frameTransport) RemainingBytes() uint64      { return uint64(t.r.Len()) }

// deadlineWriter writes to the connection in pieces of 256 KiB, each
// within the I/O timeout: a large answer to a slow client goes out as
// long as the client reads, while one that stops reading is dropped.
type deadlineWriter struct {
	c       net.Conn
	timeout time.Duration
}

func (w *deadlineWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		piece := p[:min(len(p), 256<<10)]
		if err := w.c.SetWriteDeadline(time.Now().Add(w.timeout)); err != nil {
			return n, err
		}
		m, err := w.c.Write(piece)
		n += m
		if err != nil {
			return n, err
		}
		p = p[m:]
	}
	return n, nil
}

// boundedProtocol reads a request as its protocol does, within bounds on
// what the request may declare: structs, lists, sets and maps nested at
// most maxNesting deep, and collections declaring no more entries in all
// than the frame has bytes (each entry takes at least one). fbthrift's
// generated code allocates a collection at its declared size before
// reading it. Skipping (an unknown field or method) goes through the same
// bounds: fbthrift's own Skip restarts its depth count at each map value.
type boundedProtocol struct {
	thrift.Protocol
	depth int
	// items is what the collections read so far may still declare.
	items int64
}

func (p *boundedProtocol) enter() error {
	if p.depth++; p.depth > maxNesting {
		return thrift.NewProtocolExceptionWithType(thrift.DEPTH_LIMIT, fmt.Errorf("values nested over %d deep", maxNesting))
	}
	return nil
}

func (p *boundedProtocol) declare(size int) error {
	if p.items -= int64(size); p.items < 0 {
		return thrift.NewProtocolExceptionWithType(thrift.SIZE_LIMIT, fmt.Errorf("collections declaring more entries than the request has bytes"))
	}
	return nil
}

func (p *boundedProtocol) ReadStructBegin() (string, error) {
	if err := p.enter(); err != nil {
		return "", err
	}
	return p.Protocol.ReadStructBegin()
}

func (p *boundedProtocol) ReadStructEnd() error {
	p.depth--
	return p.Protocol.ReadStructEnd()
}

func (p *boundedProtocol) ReadListBegin() (thrift.Type, int, error) {
	if err := p.enter(); err != nil {
		return 0, 0, err
	}
	t, size, err := p.Protocol.ReadListBegin()
	if err == nil {
		err = p.declare(size)
	}
	return t, size, err
}

func (p *boundedProtocol) ReadListEnd() error {
	p.depth--
	return p.Protocol.ReadListEnd()
}

func (p *boundedProtocol) ReadSetBegin() (thrift.Type, int, error) {
	if err := p.enter(); err != nil {
		return 0, 0, err
	}
	t, size, err := p.Protocol.ReadSetBegin()
	if err == nil {
		err = p.declare(size)
	}
	return t, size, err
}

func (p *boundedProtocol) ReadSetEnd() error {
	p.depth--
	return p.Protocol.ReadSetEnd()
}

func (p *boundedProtocol) ReadMapBegin() (thrift.Type, thrift.Type, int, error) {
	if err := p.enter(); err != nil {
		return 0, 0, 0, err
	}
	k, v, size, err := p.Protocol.ReadMapBegin()
	if err == nil {
		err = p.declare(size)
	}
	return k, v, size, err
}

func (p *boundedProtocol) ReadMapEnd() error {
	p.depth--
	return p.Protocol.ReadMapEnd()
}

// Skip skips with this protocol's reads, so within its bounds (fbthrift's
// own count, one deeper, is never the one reached).
func (p *boundedProtocol) Skip(t thrift.Type) error {
	return thrift.Skip(p, t, maxNesting+1)
}

// quiet reports whether err ends a connection in the ordinary way: the
// client went away, stayed idle, or graphd is stopping. A refused request
// is not quiet: the log names it.
func quiet(err error) bool {
	if errors.Is(err, errRefusedFrame) {
		return false
	}
	var te thrift.TransportException
	if errors.As(err, &te) && te.TypeID() == thrift.END_OF_FILE {
		return true
	}
	return errors.Is(err, errServerStopping) || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, io.ErrUnexpectedEOF) || isTimeout(err)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
