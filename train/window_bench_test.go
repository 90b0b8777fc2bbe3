package train

import (
	"context"
	"math"
	"testing"

	"dama/internal/cputime"
	"dama/internal/evaltest"
	"dama/runfolder"
	"dama/selfplay"
)

// BenchmarkWindowLoad measures the trainer's data path from chunk files
// to the replay window: the scan of new chunks (games and positions per
// chunk) and the window update that makes training samples of them, on 8
// chunks of 16 self-play games of a material evaluator:
//
//	go test ./train/ -run XXX -bench WindowLoad -count 3
func BenchmarkWindowLoad(b *testing.B) {
	cfg := loadConfig(b, "quick")
	run := tempRun(b)
	sc := selfplay.Config{SelfPlay: cfg.SelfPlay, Seed: 1}
	sc.Visits = 16
	cw, err := selfplay.NewChunkWriter(run.Path(runfolder.GamesDir), "bench", 16, selfplay.Header{}, false)
	if err != nil {
		b.Fatal(err)
	}
	if err := selfplay.Run(context.Background(), evaltest.Material{Steep: 1}, sc, 0, 8*16, cw.Add); err != nil {
		b.Fatal(err)
	}
	if err := cw.Flush(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, _ := cputime.Process()
	positions := 0
	for i := 0; i < b.N; i++ {
		l := &loop{cfg: cfg, run: run, counts: map[string]runfolder.ChunkInfo{}, held: selfplay.NewGameIndex()}
		fresh, err := l.unconsumed(nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := l.fillWindow(fresh, math.MaxInt); err != nil {
			b.Fatal(err)
		}
		positions += l.win.Len()
	}
	// CPU time as well as wall time: on a shared machine the CPU rate is
	// the steadier figure.
	if cpu1, ok := cputime.Process(); ok && cpu1 > cpu0 {
		b.ReportMetric(float64(positions)/(cpu1-cpu0).Seconds(), "positions/cpu-s")
	}
	b.ReportMetric(float64(positions)/b.Elapsed().Seconds(), "positions/s")
}
