package web

import (
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"dama/runfolder"
	"dama/selfplay"
)

// workerView is one self-play worker as its chunk files in games/ show it
// (in-process, run-folder and broker workers alike write
// chunk-WORKER-SEQ.dgames).
type workerView struct {
	Name     string    `json:"name"`
	Chunks   int       `json:"chunks"`
	Games    int       `json:"games"`   // in the chunks counted so far
	Pending  int       `json:"pending"` // chunks not counted yet (read a few per refresh)
	Last     string    `json:"last"`    // the newest chunk
	LastTime time.Time `json:"last_time"`
	// GamesPerHour is the rate between the worker's first and last chunk
	// (the games after the first over the time between them); null with
	// one chunk.
	GamesPerHour num `json:"games_per_hour"`
}

// maxCountPerRefresh bounds the chunks a refresh reads to count their
// games: the plans give the count of every consumed chunk, so only the
// waiting ones are read, once each, a few at a time.
const maxCountPerRefresh = 16

// workersOf groups the chunks of games/ by worker.
func workersOf(run *runfolder.Run, idx *gameIndex) ([]workerView, error) {
	if err := idx.scan(); err != nil {
		return nil, err
	}
	plans, err := run.Plans(run.NextGeneration())
	if err != nil {
		return nil, err
	}
	planned := map[string]int{}
	for _, p := range plans {
		for _, c := range p.Chunks {
			planned[c.Name] = c.Games
		}
	}
	type chunk struct {
		name  string
		games int // -1: not counted
		mod   time.Time
	}
	by := map[string][]chunk{}
	idx.mu.Lock()
	n := len(idx.chunks)
	idx.mu.Unlock()
	reads := 0
	for c := range n {
		idx.mu.Lock()
		e := idx.chunks[c]
		name, read, games := e.name, e.read, len(e.games)
		idx.mu.Unlock()
		worker, ok := chunkWorker(name)
		if !ok {
			continue
		}
		st, err := os.Stat(run.Path(runfolder.GamesDir, name))
		if err != nil {
			continue // consumed and removed since the listing
		}
		k := chunk{name: name, games: -1, mod: st.ModTime()}
		switch g, ok := planned[name]; {
		case ok:
			k.games = g
		case read:
			k.games = games
		case reads < maxCountPerRefresh:
			reads++
			k.games = len(idx.read(c).games)
		}
		by[worker] = append(by[worker], k)
	}
	out := []workerView{}
	for name, cs := range by {
		sort.Slice(cs, func(i, j int) bool { return cs[i].mod.Before(cs[j].mod) })
		v := workerView{Name: name, Chunks: len(cs), Last: cs[len(cs)-1].name, LastTime: cs[len(cs)-1].mod}
		after := 0 // games after the first chunk
		for i, c := range cs {
			if c.games < 0 {
				v.Pending++
				continue
			}
			v.Games += c.games
			if i > 0 {
				after += c.games
			}
		}
		if span := v.LastTime.Sub(cs[0].mod); len(cs) > 1 && span > 0 && v.Pending == 0 {
			v.GamesPerHour = num(float64(after) / span.Hours())
		} else {
			v.GamesPerHour = num(math.NaN())
		}
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// chunkWorker reads the worker of a chunk name, chunk-WORKER-SEQ.dgames
// (the worker may hold '-').
func chunkWorker(name string) (string, bool) {
	base, ok := strings.CutSuffix(strings.TrimPrefix(name, "chunk-"), selfplay.FileExt)
	i := strings.LastIndexByte(base, '-')
	if !ok || i <= 0 || !strings.HasPrefix(name, "chunk-") {
		return "", false
	}
	return base[:i], true
}
