package runfolder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wantErr checks that err is an error of this package mentioning each of
// words.
func wantErr(t *testing.T, what string, err error, words ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: accepted, want an error", what)
		return
	}
	if !strings.HasPrefix(err.Error(), "runfolder: ") {
		t.Errorf("%s: error %q does not start with \"runfolder: \"", what, err)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: error %q does not mention %q", what, err, w)
		}
	}
}

// A plan is checked on every read: its generation, a non-empty list of
// chunk file names each listed once with sane counts, no chunk an earlier
// plan consumed, and, for a finished generation, the chunks and counts of
// its record (issue 20, point 4: such plans were accepted, and a chunk
// consumed twice was trained on twice).
func TestPlanChecks(t *testing.T) {
	chunk := func(name string, games, positions int) ChunkInfo {
		return ChunkInfo{Name: name, Games: games, Positions: positions}
	}
	plan2 := filepath.Join(GenerationsDir, planFile(2))
	for _, tc := range []struct {
		name  string
		plan  Plan
		words []string
	}{
		{"wrong generation", Plan{Gen: 3, Chunks: []ChunkInfo{chunk("chunk-w1-000000.dgames", 4, 100)}}, []string{plan2, "generation 3, not 2"}},
		{"empty list", Plan{Gen: 2}, []string{plan2, "no chunks"}},
		{"positions without games", Plan{Gen: 2, Chunks: []ChunkInfo{chunk("chunk-w1-000000.dgames", 0, 100)}}, []string{plan2, "0 games and 100 positions"}},
		{"negative games", Plan{Gen: 2, Chunks: []ChunkInfo{chunk("chunk-w1-000000.dgames", -4, 0)}}, []string{plan2, "-4 games"}},
		{"negative positions", Plan{Gen: 2, Chunks: []ChunkInfo{chunk("chunk-w1-000000.dgames", 4, -1)}}, []string{plan2, "-1 positions"}},
		{"listed twice", Plan{Gen: 2, Chunks: []ChunkInfo{chunk("chunk-w1-000000.dgames", 4, 100), chunk("chunk-w1-000000.dgames", 4, 100)}}, []string{plan2, "chunk 2", "twice"}},
		{"outside games", Plan{Gen: 2, Chunks: []ChunkInfo{chunk("../best", 4, 100)}}, []string{plan2, `"../best"`}},
		{"hidden", Plan{Gen: 2, Chunks: []ChunkInfo{chunk(".chunk-w1-000000.dgames.tmp1", 4, 100)}}, []string{plan2, "not a chunk file name"}},
		{"consumed already", Plan{Gen: 2, Chunks: []ChunkInfo{chunk("chunk-main-000000.dgames", 4, 117)}}, []string{plan2, "chunk-main-000000.dgames", "consumed already", "generation 1"}},
	} {
		r := copySample(t)
		if err := writeJSON(r.Path(GenerationsDir, planFile(2)), tc.plan); err != nil {
			t.Fatal(err)
		}
		words := tc.words
		_, err := r.Plans(2)
		wantErr(t, tc.name+": Plans", err, words...)
		_, err = r.ConsumedChunks()
		wantErr(t, tc.name+": ConsumedChunks", err, words...)
		wantErr(t, tc.name+": CheckRecords", r.CheckRecords(), words...)
	}
	// A finished generation's plan whose counts or chunks are not its
	// record's.
	for _, tc := range []struct {
		name string
		plan Plan
	}{
		{"games", Plan{Gen: 1, Chunks: []ChunkInfo{chunk("chunk-main-000000.dgames", 5, 117)}}},
		{"positions", Plan{Gen: 1, Chunks: []ChunkInfo{chunk("chunk-main-000000.dgames", 4, 116)}}},
		{"chunks", Plan{Gen: 1, Chunks: []ChunkInfo{chunk("chunk-main-000000.dgames", 2, 100), chunk("chunk-w1-000000.dgames", 2, 17)}}},
	} {
		r := copySample(t)
		if err := writeJSON(r.Path(GenerationsDir, planFile(1)), tc.plan); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Plans(1); err != nil {
			t.Errorf("%s: the plan alone is well formed: %v", tc.name, err)
		}
		wantErr(t, tc.name+" differ from the record", r.CheckRecords(), r.Path(GenerationsDir, planFile(1)), recordFile(1))
	}
	// A plan of another file name is not read as one.
	r := copySample(t)
	if err := os.WriteFile(r.Path(GenerationsDir, "2.plan.json"), []byte(`{"gen":2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := r.ConsumedChunks()
	wantErr(t, "plan file name", err, "2.plan.json", "NNNN.plan.json")
}
