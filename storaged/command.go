package storaged

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/raftgroup"
)

// A write command is what one raft entry of a partition carries: a list of
// key operations computed by the leader, so that applying it is a blind,
// deterministic replay on every replica.
//
//	byte 0        command format version (commandVersion)
//	uvarint       number of operations
//	per operation:
//	  byte        opPut or opDelete
//	  uvarint     key length, then the key
//	  (opPut)     uvarint value length, then the value
const (
	commandVersion byte = 1
	opPut          byte = 1
	opDelete       byte = 2
)

// writeOp is one key operation of a command.
type writeOp struct {
	kind  byte
	key   []byte
	value []byte
}

func encodeCommand(ops []writeOp) []byte {
	size := 1 + binary.MaxVarintLen64
	for _, op := range ops {
		size += 1 + 2*binary.MaxVarintLen64 + len(op.key) + len(op.value)
	}
	b := make([]byte, 0, size)
	b = append(b, commandVersion)
	b = binary.AppendUvarint(b, uint64(len(ops)))
	for _, op := range ops {
		b = append(b, op.kind)
		b = binary.AppendUvarint(b, uint64(len(op.key)))
		b = append(b, op.key...)
		if op.kind == opPut {
			b = binary.AppendUvarint(b, uint64(len(op.value)))
			b = append(b, op.value...)
		}
	}
	return b
}

var errCorruptCommand = errors.New("corrupt write command")

func decodeCommand(b []byte) ([]writeOp, error) {
	if len(b) == 0 || b[0] != commandVersion {
		return nil, fmt.Errorf("%w: unknown format version", errCorruptCommand)
	}
	b = b[1:]
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, fmt.Errorf("%w: bad operation count", errCorruptCommand)
	}
	b = b[k:]
	ops := make([]writeOp, 0, n)
	readBytes := func() ([]byte, error) {
		l, k := binary.Uvarint(b)
		if k <= 0 || l > uint64(len(b)-k) {
			return nil, fmt.Errorf("%w: bad length", errCorruptCommand)
		}
		out := b[k : k+int(l)]
		b = b[k+int(l):]
		return out, nil
	}
	for i := uint64(0); i < n; i++ {
		if len(b) == 0 {
			return nil, fmt.Errorf("%w: truncated at operation %d", errCorruptCommand, i)
		}
		op := writeOp{kind: b[0]}
		b = b[1:]
		var err error
		if op.key, err = readBytes(); err != nil {
			return nil, err
		}
		switch op.kind {
		case opPut:
			if op.value, err = readBytes(); err != nil {
				return nil, err
			}
		case opDelete:
		default:
			return nil, fmt.Errorf("%w: unknown operation %d", errCorruptCommand, op.kind)
		}
		ops = append(ops, op)
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", errCorruptCommand, len(b))
	}
	return ops, nil
}

// applier is the partition state machine: it replays a command's
// operations into the round's write batch.
type applier struct{}

// Apply implements raftgroup.Applier. A command that does not decode, or
// that touches a key outside its partition, is rejected as a whole on every
// replica alike, so replicas stay identical.
func (applier) Apply(wb *grocksdb.WriteBatch, g raftgroup.GroupID, index uint64, cmd []byte) error {
	ops, err := decodeCommand(cmd)
	if err != nil {
		return fmt.Errorf("%s entry %d: %w", g, index, err)
	}
	// Only keys a snapshot carries (partition.DataRange) may be written by
	// the log, or replicas filled by snapshot would differ from the others.
	lower, upper := partition.DataRange(g.Space, g.Part)
	for _, op := range ops {
		if bytes.Compare(op.key, lower) < 0 || bytes.Compare(op.key, upper) >= 0 {
			return fmt.Errorf("%s entry %d: key %x is not a data key of this partition", g, index, op.key)
		}
	}
	for _, op := range ops {
		if op.kind == opPut {
			wb.Put(op.key, op.value)
		} else {
			wb.Delete(op.key)
		}
	}
	return nil
}
