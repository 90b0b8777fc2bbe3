package tb

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"fmt"
	"io"
	"math/bits"

	"dama/internal/atomicfile"
	"dama/internal/envelope"
)

// FormatVersion is the version of the table files' payload:
//
//	counts    4 uint8  Material: Men, Kings, OppMen, OppKings
//	positions uint64   index points (Material.Size)
//	width     uint8    bits per entry, 1..8
//	entries   a raw DEFLATE stream (compress/flate) of the entries packed
//	          width bits each, least significant bit first, in index order;
//	          the last byte padded with zeros
//
// An entry's code is 0 for a draw (and for holes), 2D-1 for a win in D
// plies (D = 1..80) and 2D+2 for a loss in D plies (D = 0..80): at most 162.
const FormatVersion = 1

// Ext is the file name extension of a table.
const Ext = ".dtb"

var fileFormat = envelope.Format{
	Kind:       "endgame table",
	Magic:      [8]byte([]byte("DAMATB\x00\x1a")),
	MinVersion: FormatVersion,
	MaxVersion: FormatVersion,
}

// maxCode is the largest entry code: a loss in 80 plies.
const maxCode = 2*80 + 2

// maxFileBytes bounds the size of a table file the reader accepts.
const maxFileBytes = 1 << 32

// maxPositions bounds a table's index points (8 pieces fit easily).
const maxPositions = 1 << 36

// encode returns the file of m's table with the given codes.
func encode(m Material, codes []uint8) ([]byte, error) {
	var top uint8
	for _, c := range codes {
		top = max(top, c)
	}
	width := max(1, bits.Len8(top))
	var payload bytes.Buffer
	payload.Write([]byte{uint8(m.Men), uint8(m.Kings), uint8(m.OppMen), uint8(m.OppKings)})
	var n [8]byte
	for i := range 8 {
		n[i] = byte(uint64(len(codes)) >> (8 * i))
	}
	payload.Write(n[:])
	payload.WriteByte(uint8(width))
	zw, err := flate.NewWriter(&payload, flate.BestCompression)
	if err != nil {
		return nil, err
	}
	packed := pack(codes, width)
	if _, err := zw.Write(packed); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return fileFormat.Append(nil, FormatVersion, payload.Bytes()), nil
}

// pack packs codes width bits each, least significant bit first.
func pack(codes []uint8, width int) []byte {
	out := make([]byte, (len(codes)*width+7)/8)
	var acc uint32
	nb, o := 0, 0
	for _, c := range codes {
		acc |= uint32(c) << nb
		nb += width
		for nb >= 8 {
			out[o] = byte(acc)
			o++
			acc >>= 8
			nb -= 8
		}
	}
	if nb > 0 {
		out[o] = byte(acc)
	}
	return out
}

// unpack is the inverse of pack for n entries.
func unpack(packed []byte, n int64, width int) []uint8 {
	out := make([]uint8, n)
	var acc uint32
	nb, o := 0, 0
	mask := uint32(1)<<width - 1
	for i := range out {
		for nb < width {
			acc |= uint32(packed[o]) << nb
			o++
			nb += 8
		}
		out[i] = uint8(acc & mask)
		acc >>= width
		nb -= width
	}
	return out
}

// decode checks a table file's bytes and returns its material and codes.
func decode(data []byte) (Material, []uint8, error) {
	version, payload, err := fileFormat.Open(data)
	if err != nil {
		return Material{}, nil, err
	}
	r := envelope.Reader{Buf: payload}
	c := r.Take(4, "material counts")
	npos := r.U64("position count")
	width := int(r.U8("bits per entry"))
	if r.Err != nil {
		return Material{}, nil, fileFormat.Fail(envelope.ErrTruncated, version, "%v", r.Err)
	}
	m := Material{int(c[0]), int(c[1]), int(c[2]), int(c[3])}
	if !m.valid() || m.Pieces() > maxTablePieces {
		return m, nil, fileFormat.Malformed(version, "material %d%d%d%d is not a signature of at most %d pieces", c[0], c[1], c[2], c[3], maxTablePieces)
	}
	if size := m.Size(); size > maxPositions || npos != uint64(size) {
		return m, nil, fileFormat.Malformed(version, "%d positions, signature %s has %d", npos, m, size)
	}
	if width < 1 || width > 8 {
		return m, nil, fileFormat.Malformed(version, "%d bits per entry, want 1 to 8", width)
	}
	want := (int64(npos)*int64(width) + 7) / 8
	zr := flate.NewReader(bytes.NewReader(payload[r.Off:]))
	packed := make([]byte, want)
	if _, err := io.ReadFull(zr, packed); err != nil {
		return m, nil, fileFormat.Malformed(version, "entries: %v (want %d packed bytes)", err, want)
	}
	var extra [1]byte
	if k, _ := zr.Read(extra[:]); k > 0 {
		return m, nil, fileFormat.Malformed(version, "entries: more than the %d packed bytes of %d positions", want, npos)
	}
	codes := unpack(packed, int64(npos), width)
	for i, v := range codes {
		if v > maxCode {
			return m, nil, fileFormat.Malformed(version, "entry %d has code %d, the largest is %d", i, v, maxCode)
		}
	}
	return m, codes, nil
}

// readTable reads and checks the table file at path, whose name must be
// its material's, and returns its codes and the SHA-256 of the file.
func readTable(path string, want Material) ([]uint8, [sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	data, err := fileFormat.ReadFile(path, maxFileBytes)
	if err != nil {
		return nil, sum, err
	}
	m, codes, err := decode(data)
	if err != nil {
		return nil, sum, envelope.WithPath(err, path)
	}
	if m != want {
		return nil, sum, fmt.Errorf("%s: endgame table of signature %s, the file name says %s", path, m, want)
	}
	return codes, sha256.Sum256(data), nil
}

// writeTable writes m's table to path atomically.
func writeTable(path string, m Material, codes []uint8) (int, error) {
	data, err := encode(m, codes)
	if err != nil {
		return 0, fmt.Errorf("encoding %s: %w", path, err)
	}
	return len(data), atomicfile.WriteFile(path, data)
}
