package train

import (
	"math/rand/v2"
	"sort"

	"dama/model/learn"
	"dama/runfolder"
)

// window holds the newest self-play positions in memory: the newest size
// samples (Update's size, the train.window_max cap included), taken from
// the newest chunks and, of the oldest of those, only its newest samples.
// Older chunks are dropped from memory (they stay on disk), so memory is
// bounded by the window whatever the length of the run. The window is a
// function of the chunks consumed and size alone, so a resumed run holds
// what an uninterrupted one would.
type window struct {
	names  []string                  // chunks held, oldest first
	data   map[string][]learn.Sample // all the samples of each chunk held
	views  [][]learn.Sample          // views[i]: the samples of names[i] in the window
	starts []int                     // starts[i]: index in the window of views[i][0]
	n      int
}

// Update makes the window hold the newest size samples of order (all
// chunks consumed so far, oldest first, with their sample counts), loading
// the chunks not yet held with load and dropping the rest. With fewer
// samples than size, it holds them all.
func (w *window) Update(order []runfolder.ChunkInfo, size int, load func(name string) ([]learn.Sample, error)) error {
	first := len(order)
	for n := 0; first > 0 && n < size; {
		first--
		n += order[first].Positions
	}
	keep := make(map[string][]learn.Sample, len(order)-first)
	names := make([]string, 0, len(order)-first)
	held := 0
	for _, c := range order[first:] {
		s, ok := w.data[c.Name]
		if !ok {
			var err error
			if s, err = load(c.Name); err != nil {
				return err
			}
		}
		keep[c.Name] = s
		names = append(names, c.Name)
		held += len(s)
	}
	w.data, w.names = keep, names
	w.views, w.starts = w.views[:0], w.starts[:0]
	w.n = 0
	for i, name := range w.names {
		v := w.data[name]
		if i == 0 && held > size {
			// The oldest chunk gives only its newest samples.
			v = v[min(held-size, len(v)):]
		}
		w.views = append(w.views, v)
		w.starts = append(w.starts, w.n)
		w.n += len(v)
	}
	return nil
}

// Len returns the number of samples held.
func (w *window) Len() int { return w.n }

// Chunks returns the number of chunks held.
func (w *window) Chunks() int { return len(w.names) }

// Sample fills dst with samples drawn uniformly, with replacement, from the
// whole window. The window must not be empty.
func (w *window) Sample(rng *rand.Rand, dst []learn.Sample) {
	for i := range dst {
		k := rng.IntN(w.n)
		c := sort.Search(len(w.starts), func(j int) bool { return w.starts[j] > k }) - 1
		dst[i] = w.views[c][k-w.starts[c]]
	}
}
