package selfplay

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"dama/internal/atomicfile"
	"dama/mcts"
)

var workerName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// ChunkName returns the file name of a worker's chunk seq.
func ChunkName(worker string, seq int) string {
	return fmt.Sprintf("chunk-%s-%06d%s", worker, seq, FileExt)
}

// ChunkWriter collects finished games and writes them to chunk files of a
// fixed number of games in a folder, optionally with a PDN copy of each
// chunk (same name, extension ".pdn"). It is not safe for concurrent use.
type ChunkWriter struct {
	dir, worker string
	per         int
	header      Header
	pdn         bool
	seq         int
	pending     []*Game
	files       []string
	games       int
}

// NewChunkWriter returns a writer of chunks of per games (default 100) in
// dir (created if needed) for worker. Numbering continues after the
// worker's chunks already in dir. h's model and config fields go into every
// file; pdn adds a PDN copy of each chunk.
func NewChunkWriter(dir, worker string, per int, h Header, pdn bool) (*ChunkWriter, error) {
	if !workerName.MatchString(worker) {
		return nil, fmt.Errorf("selfplay: worker name %q: use letters, digits, '_', '.' and '-'", worker)
	}
	if per <= 0 {
		per = 100
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	seq, err := nextChunk(dir, worker)
	if err != nil {
		return nil, err
	}
	return &ChunkWriter{dir: dir, worker: worker, per: per, header: h, pdn: pdn, seq: seq}, nil
}

// nextChunk returns the number of the next chunk file worker writes in dir:
// one more than the highest it has written there (0 for none).
func nextChunk(dir, worker string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	next := 0
	prefix := "chunk-" + worker + "-"
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, FileExt) {
			continue
		}
		if s, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, prefix), FileExt)); err == nil && s >= next {
			next = s + 1
		}
	}
	return next, nil
}

// Add queues g and writes a chunk once enough games are queued.
func (w *ChunkWriter) Add(g *Game) error {
	w.pending = append(w.pending, g)
	if len(w.pending) >= w.per {
		return w.Flush()
	}
	return nil
}

// Flush writes the queued games, if any, as a chunk (possibly short).
func (w *ChunkWriter) Flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	name := ChunkName(w.worker, w.seq)
	path := filepath.Join(w.dir, name)
	h := w.header
	h.Created = time.Now()
	if w.pdn {
		var buf bytes.Buffer
		if err := WritePDN(&buf, w.pending...); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(strings.TrimSuffix(path, FileExt)+".pdn", buf.Bytes()); err != nil {
			return err
		}
	}
	if err := WriteFile(path, h, w.pending); err != nil {
		return err
	}
	w.seq++
	w.games += len(w.pending)
	w.files = append(w.files, path)
	w.pending = w.pending[:0]
	return nil
}

// Files returns the chunk files written so far.
func (w *ChunkWriter) Files() []string { return w.files }

// Written returns the number of games written to files so far.
func (w *ChunkWriter) Written() int { return w.games }

// Chunks lists the chunk files in dir, sorted by name.
func Chunks(dir string) ([]string, error) {
	m, err := filepath.Glob(filepath.Join(dir, "chunk-*"+FileExt))
	if err != nil {
		return nil, err
	}
	sort.Strings(m)
	return m, nil
}

// Queries returns the search query of every ply of every game in the
// chunk files of dir (Chunks), in file and game order, and the number of
// games: none in a folder without chunks.
func Queries(dir string) (qs []mcts.Query, games int, err error) {
	files, err := Chunks(dir)
	if err != nil {
		return nil, 0, err
	}
	for _, f := range files {
		_, gs, err := ReadFile(f)
		if err != nil {
			return nil, 0, err
		}
		for _, g := range gs {
			games++
			for i := range g.Plies {
				qs = append(qs, g.Plies[i].Query())
			}
		}
	}
	return qs, games, nil
}
