package broker

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"dama/configs"
	"dama/internal/atomicfile"
	"dama/runfolder"
	"dama/selfplay"
)

// benchConfig is the self-play settings of benchChunk.
func benchConfig() selfplay.Config {
	c := selfplay.Config{SelfPlay: configs.Default().SelfPlay, Seed: 3}
	c.Visits, c.MaxPlies, c.Parallel = 64, 200, 16
	return c
}

// benchChunk is a chunk of 16 games like a worker's: full-length games
// with 64-visit searches (uniform priors), about the size measured from
// real runs.
func benchChunk(b *testing.B) []byte {
	b.Helper()
	var games []*selfplay.Game
	err := selfplay.Run(context.Background(), uniform, benchConfig(), 0, 16, func(g *selfplay.Game) error {
		games = append(games, g)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return encodeChunk(b, games)
}

// BenchmarkChunkThroughput moves chunks from a worker to the trainer's
// games folder: through the broker (publish and wait for the stream's
// acknowledgement, as a worker does, then the bridge verifies and writes),
// and through a shared folder (the worker writes the file, the trainer
// reads and decodes it). Both paths verify each chunk once and sync each
// file once.
func BenchmarkChunkThroughput(b *testing.B) {
	data := benchChunk(b)
	report := func(b *testing.B, start time.Time) {
		sec := time.Since(start).Seconds()
		b.ReportMetric(float64(b.N)/sec, "chunks/s")
		b.ReportMetric(float64(b.N*len(data))/sec/1e6, "MB/s")
		b.ReportMetric(float64(len(data)), "bytes/chunk")
	}
	b.Run("broker", func(b *testing.B) {
		run := testRun(b)
		s, tok := testServer(b, b.TempDir())
		br := newBridge(b, s, tok, run, nil)
		defer br.Close()
		js := jsClient(b, s, tok)
		b.ResetTimer()
		start := time.Now()
		for i := 0; i < b.N; i++ {
			publishChunk(b, js, "bench", selfplay.ChunkName("bench", i), data)
		}
		for br.Stats().Written < b.N {
			time.Sleep(time.Millisecond)
		}
		report(b, start)
	})
	b.Run("folder", func(b *testing.B) {
		run := testRun(b)
		dir := run.Path(runfolder.GamesDir)
		b.ResetTimer()
		start := time.Now()
		for i := 0; i < b.N; i++ {
			path := filepath.Join(dir, selfplay.ChunkName("bench", i))
			if err := atomicfile.WriteFile(path, data); err != nil {
				b.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			if _, _, err := selfplay.Decode(got); err != nil {
				b.Fatal(err)
			}
		}
		report(b, start)
	})
}

// BenchmarkPromotionDelay times a promotion: from the trainer's OnBest to
// the first game a worker finishes with the new model (the worker drops
// its games in play, loads and verifies the model, and plays one game of
// the test configuration: tiny network, 4 visits, at most 30 plies).
func BenchmarkPromotionDelay(b *testing.B) {
	run := testRun(b)
	s, tok := testServer(b, b.TempDir())
	br := newBridge(b, s, tok, run, nil)
	defer br.Close()
	models := []string{"accepted/0000.ckpt", "accepted/0001.ckpt"}
	br.OnBest(models[0])

	var mu sync.Mutex
	first := map[string]time.Time{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- Work(ctx, WorkerOptions{URL: s.URL(), Auth: Auth{Token: tok}, TrainerKey: testKey, Name: "bench", PerChunk: 4, Seed: 1,
			OnGame: func(m string) {
				mu.Lock()
				if first[m].IsZero() {
					first[m] = time.Now()
				}
				mu.Unlock()
			}})
	}()
	seen := func(m string) time.Time { mu.Lock(); defer mu.Unlock(); return first[m] }
	waitFor(b, "a game with the first model", func() bool { return !seen(models[0]).IsZero() })
	b.ResetTimer()
	var total time.Duration
	for i := 0; i < b.N; i++ {
		m := models[(i+1)%2]
		mu.Lock()
		delete(first, m)
		mu.Unlock()
		t0 := time.Now()
		br.OnBest(m)
		waitFor(b, fmt.Sprintf("a game with %s", m), func() bool { return !seen(m).IsZero() })
		total += seen(m).Sub(t0)
	}
	b.ReportMetric(total.Seconds()*1000/float64(b.N), "ms/promotion")
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}
