package tb

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io/fs"
	"slices"

	"dama/internal/atomicfile"
	"dama/internal/envelope"
)

// StampName is the file, in a folder of tables, that records the tables
// verified in full (Verify): each by the SHA-256 of its file, so that a
// table changed in any way, its CRC recomputed or not, is no longer
// vouched for. The stamp is a record, not a signature: whoever can write
// the folder can write it, which is why Open still samples the tables it
// vouches for.
const StampName = "verified.stamp"

// StampVersion is the version of the stamp's payload:
//
//	count   uint32    tables vouched for
//	tables  count records, in Signatures' order, each signature once:
//	  counts  4 uint8   Material: Men, Kings, OppMen, OppKings
//	  sha256  32 bytes  the SHA-256 of the table's whole file
const StampVersion = 1

var stampFormat = envelope.Format{
	Kind:       "endgame table verification stamp",
	Magic:      [8]byte([]byte("DAMATBV\x1a")),
	MinVersion: StampVersion,
	MaxVersion: StampVersion,
}

// maxStampBytes bounds the stamp the reader accepts: far more than the
// records of every signature of 8 pieces.
const maxStampBytes = 1 << 20

// stampRecordLen is the bytes of one table's record.
const stampRecordLen = 4 + sha256.Size

// stamp is the tables a stamp vouches for, by the SHA-256 of their files.
type stamp map[Material][sha256.Size]byte

// encodeStamp returns the stamp file of s.
func encodeStamp(s stamp) []byte {
	sigs := make([]Material, 0, len(s))
	for m := range s {
		sigs = append(sigs, m)
	}
	slices.SortFunc(sigs, compareMaterial)
	var payload bytes.Buffer
	payload.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(sigs))))
	for _, m := range sigs {
		payload.Write([]byte{uint8(m.Men), uint8(m.Kings), uint8(m.OppMen), uint8(m.OppKings)})
		sum := s[m]
		payload.Write(sum[:])
	}
	return stampFormat.Append(nil, StampVersion, payload.Bytes())
}

// decodeStamp checks a stamp file's bytes and returns what it vouches for.
func decodeStamp(data []byte) (stamp, error) {
	version, payload, err := stampFormat.Open(data)
	if err != nil {
		return nil, err
	}
	r := envelope.Reader{Buf: payload}
	n := r.U32("table count")
	if r.Err != nil {
		return nil, stampFormat.Fail(envelope.ErrTruncated, version, "%v", r.Err)
	}
	if want := uint64(n) * stampRecordLen; uint64(r.Left()) != want {
		return nil, stampFormat.Malformed(version, "%d tables take %d bytes, the stamp has %d", n, want, r.Left())
	}
	s := stamp{}
	var prev Material
	for i := range int(n) {
		c := r.Take(4, "signature")
		m := Material{int(c[0]), int(c[1]), int(c[2]), int(c[3])}
		if !m.valid() || m.Pieces() > maxTablePieces {
			return nil, stampFormat.Malformed(version, "record %d: %d%d%d%d is not a signature of at most %d pieces", i, c[0], c[1], c[2], c[3], maxTablePieces)
		}
		if i > 0 && compareMaterial(prev, m) >= 0 {
			return nil, stampFormat.Malformed(version, "record %d: signature %s after %s, want each once in order", i, m, prev)
		}
		prev = m
		s[m] = [sha256.Size]byte(r.Take(sha256.Size, "sha256"))
	}
	return s, nil
}

// readStamp reads the stamp of dir; a missing stamp is an empty one.
func readStamp(path string) (stamp, error) {
	data, err := stampFormat.ReadFile(path, maxStampBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return stamp{}, nil
	}
	if err != nil {
		return nil, err
	}
	s, err := decodeStamp(data)
	return s, envelope.WithPath(err, path)
}

// writeStamp writes the stamp atomically.
func writeStamp(path string, s stamp) error {
	return atomicfile.WriteFile(path, encodeStamp(s))
}
