package runfolder

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"dama/internal/atomicfile"
)

// Run is a run folder: everything a training run writes, so that any process
// may be killed at any moment and the same command started again.
//
//	config.yaml      the effective configuration, archived at the start
//	config.sha256    its digest (config.sha256.pending while it is rewritten)
//	config-changes.jsonl  keys a resume changed on purpose, from which generation
//	revision         the project revision that started the run
//	best             one line: the current best model, accepted/NNNN.ckpt
//	candidates/      NNNN.ckpt, written by the trainer
//	accepted/        candidates that passed the arena
//	rejected/        candidates that failed it
//	games/           self-play chunks (selfplay's binary format)
//	generations/     NNNN.json: what each generation consumed and produced;
//	                 NNNN.plan.json: the chunks it consumes;
//	                 NNNN.arena.pdn: the games of its gating match that
//	                 the result counts; NNNN.ladder.pdn: the games that
//	                 rated the best model after it (see MatchGamesName)
//	metrics.jsonl    one JSON object per training step
//	arena.jsonl      one JSON object per arena match
//	ladder.jsonl     one JSON object per ladder rating
//	plots/           PNG plots written by dama report
//
// Every file is written under a temporary name and renamed into place.
type Run struct {
	Dir string
}

// Subfolders of a run.
const (
	CandidatesDir  = "candidates"
	AcceptedDir    = "accepted"
	RejectedDir    = "rejected"
	GamesDir       = "games"
	GenerationsDir = "generations"
	PlotsDir       = "plots"
	// QuarantineDir keeps the chunks the trainer refused, each with a
	// text file beside it (the chunk's name and ".why") saying why.
	QuarantineDir = "quarantine"
)

// Files of a run.
const (
	ConfigFile   = "config.yaml"
	RevisionFile = "revision"
	BestFile     = "best"
	MetricsFile  = "metrics.jsonl"
	ArenaFile    = "arena.jsonl"
	LadderFile   = "ladder.jsonl"
	InitFile     = "init"
)

// Open creates the run folder and its subfolders if needed.
func Open(dir string) (*Run, error) {
	if dir == "" {
		return nil, errors.New("runfolder: empty run folder name")
	}
	for _, sub := range []string{"", CandidatesDir, AcceptedDir, RejectedDir, GamesDir, GenerationsDir, PlotsDir} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, fmt.Errorf("runfolder: creating run folder: %w", err)
		}
	}
	return &Run{Dir: dir}, nil
}

// Path joins elem to the run folder.
func (r *Run) Path(elem ...string) string {
	return filepath.Join(append([]string{r.Dir}, elem...)...)
}

// Exists reports, as an error naming the run folder, whether it is
// missing or not a directory; unlike Open it creates nothing.
func (r *Run) Exists() error {
	st, err := os.Stat(r.Dir)
	if err != nil {
		return fmt.Errorf("run folder %s: %w", r.Dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("run folder %s: not a directory", r.Dir)
	}
	return nil
}

// WriteFileAtomic writes data to path through a temporary file in the same
// folder, synced and renamed into place, so readers see the old or the new
// content, never a part.
func WriteFileAtomic(path string, data []byte) error { return atomicfile.WriteFile(path, data) }

// CandidateName is the file name of generation gen's candidate.
func CandidateName(gen int) string { return fmt.Sprintf("%04d.ckpt", gen) }

// Best returns the current best model's path relative to the run folder, or
// "" when none has been set. The best file must name a checkpoint of
// accepted/ (NNNN.ckpt, no other folder, no ".."), and neither that file
// nor accepted/ may be a symbolic link (it could lead out of the run
// folder); a best file that names a missing file is left to BestPath.
func (r *Run) Best() (string, error) {
	path := r.Path(BestFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	name := strings.TrimSpace(string(b))
	if name == "" || strings.IndexFunc(name, func(c rune) bool { return !unicode.IsPrint(c) }) >= 0 {
		return "", fmt.Errorf("runfolder: %s: bad best model name %q", path, name)
	}
	if _, ok := checkpointGen(name); !ok || filepath.Clean(name) != name || filepath.Dir(name) != AcceptedDir {
		return "", fmt.Errorf("runfolder: %s: bad best model name %q: want a checkpoint of %s/ (e.g. %s)", path, name, AcceptedDir, filepath.Join(AcceptedDir, CandidateName(1)))
	}
	for _, p := range []string{AcceptedDir, name} {
		st, err := os.Lstat(r.Path(p))
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return "", fmt.Errorf("runfolder: %s: %w", path, err)
		case st.Mode()&os.ModeSymlink != 0:
			return "", fmt.Errorf("runfolder: %s names %s, and %s is a symbolic link; the best model must be a file inside the run folder", path, name, r.Path(p))
		case p == name && !st.Mode().IsRegular():
			return "", fmt.Errorf("runfolder: %s names %s, which is not a regular file", path, name)
		}
	}
	return name, nil
}

// SetBest replaces the best pointer atomically.
func (r *Run) SetBest(rel string) error {
	return WriteFileAtomic(r.Path(BestFile), []byte(rel+"\n"))
}

// checkpointGen parses the generation from a checkpoint file name
// ("0007.ckpt" -> 7).
func checkpointGen(name string) (int, bool) {
	base := strings.TrimSuffix(filepath.Base(name), ".ckpt")
	if base == filepath.Base(name) {
		return 0, false
	}
	n, err := strconv.Atoi(base)
	return n, err == nil && n >= 0
}

// Generations lists the generation numbers of the checkpoints in a subfolder
// (CandidatesDir, AcceptedDir or RejectedDir), in increasing order.
func (r *Run) Generations(sub string) ([]int, error) {
	ents, err := os.ReadDir(r.Path(sub))
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range ents {
		if g, ok := checkpointGen(e.Name()); ok && !e.IsDir() {
			out = append(out, g)
		}
	}
	sort.Ints(out)
	return out, nil
}

// FindCheckpoint returns the relative path of generation gen's checkpoint,
// wherever it is (candidates, accepted or rejected), or "".
func (r *Run) FindCheckpoint(gen int) string {
	for _, sub := range []string{AcceptedDir, RejectedDir, CandidatesDir} {
		rel := filepath.Join(sub, CandidateName(gen))
		if _, err := os.Stat(r.Path(rel)); err == nil {
			return rel
		}
	}
	return ""
}

// AppendJSONL appends each value as one JSON line to the run file name, in
// one synced write. A reader skips a final line without its newline (a write
// cut off by a kill), and the next append cuts such a line first.
func (r *Run) AppendJSONL(name string, vs ...any) error {
	var buf bytes.Buffer
	for _, v := range vs {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	path := r.Path(name)
	if err := repairJSONL(path); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(buf.Bytes())
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// repairJSONL cuts a trailing partial line left by a killed writer. It
// reads only the end of the file.
func repairJSONL(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return err
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, st.Size()-1); err != nil {
		return err
	}
	if last[0] == '\n' {
		return nil
	}
	for n := int64(4096); ; n *= 4 {
		off := max(0, st.Size()-n)
		buf := make([]byte, st.Size()-off)
		if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
			return err
		}
		if k := bytes.LastIndexByte(buf, '\n'); k >= 0 || off == 0 {
			return os.Truncate(path, off+int64(k)+1)
		}
	}
}

// ReadJSONL decodes every complete line of the run file name into a new T,
// calling fn for each; a missing file has no lines. An error names the
// file and the line.
func ReadJSONL[T any](r *Run, name string, fn func(T) error) error {
	return readJSONLines(r, name, func(_ int, v T) error { return fn(v) })
}

// readJSONLines is ReadJSONL with each line's number given to fn; an error
// fn returns is given the file and the line.
func readJSONLines[T any](r *Run, name string, fn func(line int, v T) error) error {
	f, err := os.Open(r.Path(name))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if err == io.EOF {
			return nil // a final line without newline is a cut-off write
		}
		if err != nil {
			return err
		}
		var v T
		if err := json.Unmarshal(line, &v); err != nil {
			return fmt.Errorf("runfolder: %s line %d: %w", r.Path(name), lineNo, err)
		}
		if err := fn(lineNo, v); err != nil {
			return fmt.Errorf("runfolder: %s line %d: %w", r.Path(name), lineNo, err)
		}
	}
}

// ReadMetrics reads metrics.jsonl as ReadJSONL does, and checks that the
// training steps strictly increase: a line repeating or going back on a
// step is an error naming the line (a resume drops the lines of the
// generation it trains again before logging them anew).
func ReadMetrics(r *Run, fn func(MetricRecord) error) error {
	var prev int64
	return readJSONLines(r, MetricsFile, func(line int, m MetricRecord) error {
		if line > 1 && m.Step <= prev {
			return fmt.Errorf("step %d does not follow step %d of the line before (steps strictly increase)", m.Step, prev)
		}
		prev = m.Step
		return fn(m)
	})
}

// ReadLadder reads ladder.jsonl as ReadJSONL does, and checks each line's
// form: a generation from 1, the model a checkpoint of accepted/, games
// and visits, finite ratings with the interval's low end at most its high
// one, and a bound of "above", "below" or none. A line that fails (JSON of
// another shape, garbage that happens to decode) is an error naming the
// file and the line.
func ReadLadder(r *Run, fn func(LadderRecord) error) error {
	return readJSONLines(r, LadderFile, func(_ int, l LadderRecord) error {
		_, ckpt := checkpointGen(l.Model)
		finite := true
		for _, x := range []float64{l.Elo, l.Low, l.High, l.CPUHours, l.LadderSec} {
			finite = finite && !math.IsNaN(x) && !math.IsInf(x, 0)
		}
		switch {
		case l.Gen < 1:
			return fmt.Errorf("generation %d, want 1 or more", l.Gen)
		case !ckpt || filepath.Dir(filepath.Clean(l.Model)) != AcceptedDir:
			return fmt.Errorf("model %q is not a checkpoint of %s/", l.Model, AcceptedDir)
		case l.Games < 1 || l.Visits < 1 || l.TotalGames < 0 || l.TotalPositions < 0:
			return fmt.Errorf("%d games at %d visits (%d games, %d positions so far): want games and visits", l.Games, l.Visits, l.TotalGames, l.TotalPositions)
		case !finite || l.Low > l.High || l.CPUHours < 0:
			return fmt.Errorf("Elo %v [%v, %v] after %v CPU-hours: want finite numbers, low <= high", l.Elo, l.Low, l.High, l.CPUHours)
		case l.Bound != "" && l.Bound != "above" && l.Bound != "below":
			return fmt.Errorf("bound %q, want above, below or none", l.Bound)
		}
		return fn(l)
	})
}

// LastJSONL decodes the last complete line of the run file name into v; it
// reports false when the file is missing or has no complete line. It reads
// only the end of the file.
func LastJSONL(r *Run, name string, v any) (bool, error) {
	f, err := os.Open(r.Path(name))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, err
	}
	for n := int64(4096); ; n *= 4 {
		off := max(0, st.Size()-n)
		buf := make([]byte, st.Size()-off)
		if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
			return false, err
		}
		end := bytes.LastIndexByte(buf, '\n')
		if end < 0 {
			if off == 0 {
				return false, nil
			}
			continue
		}
		start := bytes.LastIndexByte(buf[:end], '\n') + 1
		if start == 0 && off > 0 {
			continue // the line may begin before what was read
		}
		if err := json.Unmarshal(buf[start:end], v); err != nil {
			return false, fmt.Errorf("%s: last line: %w", r.Path(name), err)
		}
		return true, nil
	}
}

// RewriteJSONL keeps only the complete lines of the run file name for which
// keep returns true, atomically. It is used on resume to drop metrics that a
// killed trainer logged past its last saved checkpoint.
func RewriteJSONL[T any](r *Run, name string, keep func(T) bool) error {
	var buf bytes.Buffer
	changed := false
	err := ReadJSONL(r, name, func(v T) error {
		if !keep(v) {
			changed = true
			return nil
		}
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
		return nil
	})
	if err != nil || !changed {
		return err
	}
	return WriteFileAtomic(r.Path(name), buf.Bytes())
}

// ResolveModel returns the checkpoint file that path stands for: path
// itself for a checkpoint, the best model for a run folder or for a run
// folder's best file. A best file that is bad or names a missing file is
// an error naming the best file.
func ResolveModel(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	var run *Run
	switch {
	case st.IsDir():
		run = &Run{Dir: path}
		if _, err := os.Stat(run.Path(BestFile)); errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("runfolder: %s is a folder with no best model (no %s file); give a checkpoint file or a run folder", path, BestFile)
		}
	case filepath.Base(path) == BestFile && st.Size() < 4096:
		run = &Run{Dir: filepath.Dir(path)}
	default:
		return path, nil
	}
	return run.BestPath()
}

// BestPath returns the path of the best model's checkpoint, checking that
// the best file is well formed and names an existing file.
func (r *Run) BestPath() (string, error) {
	best, err := r.Best()
	if err != nil {
		return "", err
	}
	if best == "" {
		return "", fmt.Errorf("runfolder: run folder %s has no best model yet (no %s file)", r.Dir, BestFile)
	}
	p := r.Path(best)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("runfolder: %s names %s, which does not exist", r.Path(BestFile), p)
	}
	return p, nil
}
