package selfplay

import (
	"testing"

	"dama/internal/cputime"
)

// BenchmarkDecode decodes an in-memory chunk of 20 games as the trainer
// reads them (the part of ReadFile after reading the file), per
// wall-clock and per CPU second (steadier on a shared machine):
//
//	go test ./selfplay/ -run XXX -bench Decode
func BenchmarkDecode(b *testing.B) {
	games := policyGames(b, 20)
	benchDecode(b, encode(b, testHeader(), games))
}

func benchDecode(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var n, positions int
	cpu0, _ := cputime.Process()
	for b.Loop() {
		_, gs, err := Decode(data)
		if err != nil {
			b.Fatal(err)
		}
		for _, g := range gs {
			positions += len(g.Plies)
		}
		n += len(gs)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "games/s")
	b.ReportMetric(float64(positions)/b.Elapsed().Seconds(), "positions/s")
	if cpu1, ok := cputime.Process(); ok && cpu1 > cpu0 {
		b.ReportMetric(float64(positions)/(cpu1-cpu0).Seconds(), "positions/cpu-s")
	}
}

// BenchmarkEncode encodes the same chunk (the part of WriteFile before
// writing the file).
func BenchmarkEncode(b *testing.B) {
	games := policyGames(b, 20)
	h := testHeader()
	b.ReportAllocs()
	positions := 0
	cpu0, _ := cputime.Process()
	for b.Loop() {
		data := encode(b, h, games)
		b.SetBytes(int64(len(data)))
		for _, g := range games {
			positions += len(g.Plies)
		}
	}
	b.ReportMetric(float64(positions)/b.Elapsed().Seconds(), "positions/s")
	if cpu1, ok := cputime.Process(); ok && cpu1 > cpu0 {
		b.ReportMetric(float64(positions)/(cpu1-cpu0).Seconds(), "positions/cpu-s")
	}
}
