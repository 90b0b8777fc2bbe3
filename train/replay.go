package train

import (
	"math/rand/v2"
	"sort"

	"dama/model/learn"
	"dama/runfolder"
)

// Window holds the newest self-play positions in memory: the samples of
// the newest chunks that together reach the window size. Older chunks are
// dropped from memory (they stay on disk), so memory is bounded by the
// window whatever the length of the run.
type Window struct {
	names  []string                  // chunks held, oldest first
	data   map[string][]learn.Sample // samples of each chunk held
	starts []int                     // starts[i]: index of the first sample of names[i]
	n      int
}

// Update makes the window hold the newest chunks of order (all chunks
// consumed so far, oldest first, with their sample counts) that reach size
// samples, loading those not yet held with load and dropping the rest.
func (w *Window) Update(order []runfolder.ChunkInfo, size int, load func(name string) ([]learn.Sample, error)) error {
	first := len(order)
	for n := 0; first > 0 && n < size; {
		first--
		n += order[first].Positions
	}
	keep := make(map[string][]learn.Sample, len(order)-first)
	names := make([]string, 0, len(order)-first)
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
	}
	w.data, w.names = keep, names
	w.starts = w.starts[:0]
	w.n = 0
	for _, name := range w.names {
		w.starts = append(w.starts, w.n)
		w.n += len(w.data[name])
	}
	return nil
}

// Len returns the number of samples held.
func (w *Window) Len() int { return w.n }

// Chunks returns the number of chunks held.
func (w *Window) Chunks() int { return len(w.names) }

// Sample fills dst with samples drawn uniformly, with replacement, from the
// whole window. The window must not be empty.
func (w *Window) Sample(rng *rand.Rand, dst []learn.Sample) {
	for i := range dst {
		k := rng.IntN(w.n)
		c := sort.Search(len(w.starts), func(j int) bool { return w.starts[j] > k }) - 1
		dst[i] = w.data[w.names[c]][k-w.starts[c]]
	}
}
