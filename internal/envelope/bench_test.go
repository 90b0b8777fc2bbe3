package envelope

import (
	"crypto/sha256"
	"hash/crc32"
	"testing"
)

// BenchmarkChecksum compares the envelope's CRC-32C with the CRC-32
// (IEEE) of the games files before it and SHA-256, on 1 MiB (MB/s):
//
//	go test ./internal/envelope/ -run XXX -bench Checksum
func BenchmarkChecksum(b *testing.B) {
	data := make([]byte, 1<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	for _, c := range []struct {
		name string
		sum  func([]byte)
	}{
		{"crc32c", func(d []byte) { Checksum(d) }},
		{"crc32-ieee", func(d []byte) { crc32.ChecksumIEEE(d) }},
		{"sha256", func(d []byte) { sha256.Sum256(d) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				c.sum(data)
			}
		})
	}
}

// BenchmarkOpen checks a 1 MiB envelope (header, length, checksum).
func BenchmarkOpen(b *testing.B) {
	data := testFormat.Append(nil, 3, make([]byte, 1<<20))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, err := testFormat.Open(data); err != nil {
			b.Fatal(err)
		}
	}
}
