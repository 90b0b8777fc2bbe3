package export

import (
	"encoding/binary"
	"math"
)

// pb is a minimal protocol buffers wire-format encoder: enough to write the
// ONNX messages (varints, length-delimited fields, nested messages). A
// message is built bottom-up: nested messages are encoded first and written
// as bytes fields.
type pb struct{ b []byte }

// Wire types.
const (
	wireVarint = 0
	wireBytes  = 2
)

func (m *pb) tag(field, wire int) { m.varint(uint64(field)<<3 | uint64(wire)) }

func (m *pb) varint(v uint64) { m.b = binary.AppendUvarint(m.b, v) }

// int64 writes a varint field (int32, int64 and enum fields; negative values
// take ten bytes, as the format requires).
func (m *pb) int64(field int, v int64) {
	m.tag(field, wireVarint)
	m.varint(uint64(v))
}

// bytes writes a length-delimited field.
func (m *pb) bytes(field int, b []byte) {
	m.tag(field, wireBytes)
	m.varint(uint64(len(b)))
	m.b = append(m.b, b...)
}

func (m *pb) string(field int, s string) {
	m.tag(field, wireBytes)
	m.varint(uint64(len(s)))
	m.b = append(m.b, s...)
}

// message writes a nested message field.
func (m *pb) message(field int, sub *pb) { m.bytes(field, sub.b) }

// float32s returns the little-endian bytes of v, the layout of
// TensorProto.raw_data for FLOAT tensors.
func float32s(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}
