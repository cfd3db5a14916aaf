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
// protocol id and the number of transforms, ... (fbthrift's header.go).
// graphd reads only as far as the number of transforms and refuses any:
// NebulaGraph's clients send none.

// headerMagic starts a header-transport frame after its length.
const headerMagic = 0x0FFF

// Bounds on what a request's Thrift data may declare, as parsed
// (boundedProtocol).
const (
	// maxStructDepth bounds the nesting of structs: a parameter's Value
	// holds an NList holding Values, and fbthrift's decoding recurses,
	// so a deeply nested one would overflow the stack, which no recover
	// catches. 128 structs is 63 levels of lists in a parameter.
	maxStructDepth = 128
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
	c := &conn{s: s, nc: nc, st: st, host: host, r: bufio.NewReaderSize(nc, 32<<10), w: bufio.NewWriterSize(wc, 64<<10), wc: wc}
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
		c.endRequest(len(frame))
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
			c.endRequest(0)
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
	// The frame grows as its bytes arrive, charged to the bound on all
	// frames being read: a declared size alone reserves nothing.
	total := 4 + size
	frame = make([]byte, 0, min(total, 64<<10))
	for int64(len(frame)) < total {
		chunk := min(total-int64(len(frame)), 1<<20)
		if s.buffered.Add(chunk) > s.cfg.MaxBufferedBytes {
			s.buffered.Add(-chunk - int64(len(frame)))
			return nil, fmt.Errorf("%w: graphd is reading %d MiB of NebulaGraph-protocol requests at once, its bound (retry)", errRefusedFrame, s.cfg.MaxBufferedBytes>>20)
		}
		frame = append(frame, make([]byte, chunk)...)
		if _, err := io.ReadFull(c.r, frame[int64(len(frame))-chunk:]); err != nil {
			s.buffered.Add(-int64(len(frame)))
			return nil, err
		}
	}
	if err := checkHeader(frame); err != nil {
		s.buffered.Add(-int64(len(frame)))
		return nil, err
	}
	c.served++
	return frame, nil
}

// checkHeader refuses a header-transport frame whose header does not fit
// in it or that asks for transforms.
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
	return nil
}

// endRequest marks the request over, for Stop, and releases its frame's
// charge.
func (c *conn) endRequest(frameBytes int) {
	c.s.buffered.Add(-int64(frameBytes))
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
	// The answer's slabs go back to the pools once it is written.
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
// what the request may declare: structs nested at most maxStructDepth
// deep, and lists, sets and maps declaring no more entries in all than
// the frame has bytes (each entry takes at least one). fbthrift's
// generated code allocates a collection at its declared size before
// reading it.
type boundedProtocol struct {
	thrift.Protocol
	depth int
	// items is what the collections read so far may still declare.
	items int64
}

func (p *boundedProtocol) ReadStructBegin() (string, error) {
	if p.depth++; p.depth > maxStructDepth {
		return "", thrift.NewProtocolExceptionWithType(thrift.DEPTH_LIMIT, fmt.Errorf("values nested over %d deep", maxStructDepth))
	}
	return p.Protocol.ReadStructBegin()
}

func (p *boundedProtocol) ReadStructEnd() error {
	p.depth--
	return p.Protocol.ReadStructEnd()
}

func (p *boundedProtocol) declare(size int) error {
	if p.items -= int64(size); p.items < 0 {
		return thrift.NewProtocolExceptionWithType(thrift.SIZE_LIMIT, fmt.Errorf("collections declaring more entries than the request has bytes"))
	}
	return nil
}

func (p *boundedProtocol) ReadListBegin() (thrift.Type, int, error) {
	t, size, err := p.Protocol.ReadListBegin()
	if err == nil {
		err = p.declare(size)
	}
	return t, size, err
}

func (p *boundedProtocol) ReadSetBegin() (thrift.Type, int, error) {
	t, size, err := p.Protocol.ReadSetBegin()
	if err == nil {
		err = p.declare(size)
	}
	return t, size, err
}

func (p *boundedProtocol) ReadMapBegin() (thrift.Type, thrift.Type, int, error) {
	k, v, size, err := p.Protocol.ReadMapBegin()
	if err == nil {
		err = p.declare(size)
	}
	return k, v, size, err
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
