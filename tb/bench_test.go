package tb

import (
	"context"
	"math/rand/v2"
	"testing"

	"dama/mcts"
	"dama/rules"
)

// BenchmarkProbe measures probes of random table positions, either side to
// move (go test ./tb -run XXX -bench Probe; -short for the 3-piece tables).
func BenchmarkProbe(b *testing.B) {
	tb := testTables(b)
	r := rand.New(rand.NewPCG(3, 4))
	var ps []rules.Position
	for _, m := range Signatures(tb.Pieces()) {
		for range 256 {
			ps = append(ps, randomPosition(r, m))
		}
	}
	b.ResetTimer()
	wins := 0
	for i := 0; b.Loop(); i++ {
		e, err := tb.Probe(ps[i%len(ps)])
		if err != nil {
			b.Fatal(err)
		}
		if e.Type == Win {
			wins++
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "probes/s")
}

// BenchmarkOracle measures Oracle.Prove, the call the search makes at a
// new leaf.
func BenchmarkOracle(b *testing.B) {
	o := Oracle{T: testTables(b)}
	r := rand.New(rand.NewPCG(3, 4))
	var qs []mcts.Query
	for _, m := range Signatures(o.T.Pieces()) {
		for range 256 {
			p := randomPosition(r, m)
			qs = append(qs, mcts.Query{Pos: p, Legal: p.Legal(nil), QuietPlies: r.IntN(rules.QuietLimit)})
		}
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		o.Prove(qs[i%len(qs)])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "probes/s")
}

// BenchmarkGenerate3 measures the generation of the 3-piece tables.
func BenchmarkGenerate3(b *testing.B) {
	var n int64
	for b.Loop() {
		st, err := Generate(b.Context(), GenOptions{Pieces: 3, Dir: b.TempDir(), Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		n += st.Positions
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "positions/s")
}

// BenchmarkVerify measures a full one-ply check of the test tables on one
// thread (go test ./tb -run XXX -bench Verify; -short for the 3-piece
// tables): entries checked per second.
func BenchmarkVerify(b *testing.B) {
	tb := testTables(b)
	var n int64
	for b.Loop() {
		r, err := Verify(context.Background(), tb, VerifyOptions{Threads: 1})
		if err != nil || r.Inconsistencies != 0 {
			b.Fatal(err, r.Inconsistencies)
		}
		n += r.Entries
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "entries/s")
}
