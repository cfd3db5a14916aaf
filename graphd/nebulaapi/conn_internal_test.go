package nebulaapi

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/vesoft-inc/fbthrift/thrift/lib/go/thrift"
)

// headerFrame is a header-transport frame with the given header bytes
// (protocol id, transforms, ...) and payload.
func headerFrame(header, payload []byte) []byte {
	for len(header)%4 != 0 {
		header = append(header, 0) // padding, as fbthrift writes it
	}
	body := []byte{0x0F, 0xFF, 0, 0, 0, 0, 0, 1}
	body = binary.BigEndian.AppendUint16(body, uint16(len(header)/4))
	body = append(append(body, header...), payload...)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
}

func TestCheckHeader(t *testing.T) {
	for _, tc := range []struct {
		name  string
		frame []byte
		err   string
	}{
		{"framed compact, no header", append([]byte{0, 0, 0, 3}, 0x82, 0x21, 0x01), ""},
		{"header, compact, no transforms", headerFrame([]byte{2, 0}, []byte("payload")), ""},
		{"zlib", headerFrame([]byte{2, 1, 1}, nil), "transforms (compression)"},
		{"zlib and zstd", headerFrame([]byte{2, 2, 1, 2}, nil), "asks for 2 transforms"},
		// A protocol id padded to ten bytes must not hide the transforms.
		{"padded protocol id", headerFrame([]byte{0x82, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0, 1, 1}, nil), "transforms"},
		{"header longer than its frame", func() []byte {
			f := headerFrame([]byte{2, 0}, nil)
			binary.BigEndian.PutUint16(f[12:14], 100)
			return f
		}(), "a header of 400 bytes"},
		{"header frame too short", []byte{0, 0, 0, 4, 0x0F, 0xFF, 0, 0}, "a header frame of 4 bytes"},
		// Key-value headers, as nebula-go sends its client metadata.
		{"key-value pairs", headerFrame([]byte{2, 0, 1, 1, 3, 'k', 'e', 'y', 1, 'v'}, nil), ""},
		{"persistent key-value pairs and padding", headerFrame([]byte{2, 0, 0, 2, 1, 1, 'k', 0}, nil), ""},
		// fbthrift would allocate a string of the declared length first.
		{"a string longer than the header", headerFrame([]byte{2, 0, 1, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10}, nil), "a header string of"},
		{"more pairs than bytes", headerFrame([]byte{2, 0, 1, 0x80, 0x80, 0x04}, nil), "key-value pairs in"},
		{"an unknown header block", headerFrame([]byte{2, 0, 9}, nil), "unknown kind 9"},
	} {
		err := checkHeader(tc.frame)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, errRefusedFrame)):
			t.Errorf("%s: %v, want a refusal with %q", tc.name, err, tc.err)
		}
	}
}

// TestBoundedProtocol: collections cannot declare more entries than the
// request has bytes, nor structs nest past maxNesting.
func TestBoundedProtocol(t *testing.T) {
	encode := func(write func(p *thrift.CompactProtocol)) *thrift.CompactProtocol {
		buf := thrift.NewMemoryBuffer()
		p := thrift.NewCompactProtocol(buf)
		write(p)
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
		return thrift.NewCompactProtocol(thrift.NewMemoryBufferWithData(buf.Bytes()))
	}
	// fbthrift checks each size against the bytes left; the bound is on
	// their sum, so the data has room for either collection alone.
	lists := encode(func(p *thrift.CompactProtocol) {
		p.WriteListBegin(thrift.I32, 60)
		p.WriteMapBegin(thrift.STRING, thrift.I32, 50)
		p.Transport().Write(make([]byte, 200))
	})
	b := &boundedProtocol{Protocol: lists, items: 100}
	if _, n, err := b.ReadListBegin(); err != nil || n != 60 {
		t.Fatalf("a list of 60 within 100: %d %v", n, err)
	}
	if _, _, _, err := b.ReadMapBegin(); err == nil || !strings.Contains(err.Error(), "more entries than the request has bytes") {
		t.Fatalf("a map of 50 after a list of 60, within 100: %v", err)
	}

	structs := encode(func(p *thrift.CompactProtocol) {
		for range maxNesting + 1 {
			p.WriteStructBegin("Value")
			p.WriteFieldBegin("lVal", thrift.STRUCT, 12)
		}
	})
	b = &boundedProtocol{Protocol: structs, items: 1 << 20}
	var err error
	depth := 0
	for ; err == nil && depth <= maxNesting; depth++ {
		if _, err = b.ReadStructBegin(); err == nil {
			_, _, _, err = b.ReadFieldBegin()
		}
	}
	if err == nil || !strings.Contains(err.Error(), "nested over 192 deep") || depth != maxNesting+1 {
		t.Fatalf("structs %d deep: %v", depth, err)
	}

	// Skipping (an unknown field or method) is bounded too: fbthrift's own
	// Skip would go on past its depth limit inside a map's values.
	nested := encode(func(p *thrift.CompactProtocol) {
		for range 300 {
			p.WriteListBegin(thrift.LIST, 1)
		}
		p.WriteListBegin(thrift.I32, 0)
	})
	b = &boundedProtocol{Protocol: nested, items: 1 << 20}
	if err := b.Skip(thrift.LIST); err == nil || !strings.Contains(err.Error(), "nested over 192 deep") {
		t.Fatalf("skipping lists 300 deep: %v", err)
	}
}
