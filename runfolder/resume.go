package runfolder

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"dama/configs"
)

// configDigestFile holds the SHA-256 of the archived config.yaml, so that a
// resume can tell the archive from an edited, truncated or replaced file.
// Its one line is "dama-config-digest 1 <hex>".
const configDigestFile = "config.sha256"

const configDigestHeader = "dama-config-digest 1 "

// SafeResumeKeys are the configuration keys a resumed run may change: they
// decide how long the run goes on and how many threads it uses, not what
// it computes. Any other difference from the archived configuration is
// refused.
var SafeResumeKeys = []string{"run.generations", "run.workers"}

func digestLine(data []byte) []byte {
	sum := sha256.Sum256(data)
	return []byte(configDigestHeader + hex.EncodeToString(sum[:]) + "\n")
}

// WriteConfig archives the configuration (its YAML y) and its digest.
func (r *Run) WriteConfig(y []byte) error {
	if err := WriteFileAtomic(r.Path(ConfigFile), y); err != nil {
		return err
	}
	return WriteFileAtomic(r.Path(configDigestFile), digestLine(y))
}

// Started reports whether the run folder holds the work of a run: the
// archive's digest, a best pointer, a checkpoint or a generation record.
func (r *Run) Started() bool {
	for _, f := range []string{configDigestFile, BestFile, GenerationsDir + "/" + recordFile(1)} {
		if _, err := os.Stat(r.Path(f)); err == nil {
			return true
		}
	}
	return r.FindCheckpoint(0) != ""
}

// ReadArchivedConfig checks data, the content of config.yaml, against its
// digest and against what archiving it would write, and returns the
// configuration. A run folder from before the digest gets one.
func (r *Run) ReadArchivedConfig(data []byte) (*configs.Config, error) {
	path := r.Path(ConfigFile)
	refuse := func(why string) error {
		return fmt.Errorf("runfolder: %s %s; resume refused: restore the archived file (or start a new --run)", path, why)
	}
	d, err := os.ReadFile(r.Path(configDigestFile))
	hasDigest := err == nil
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, err
	case string(d) != string(digestLine(data)):
		return nil, refuse("was changed since the run archived it (its digest in " + configDigestFile + " differs)")
	}
	prev, err := configs.Load(path, nil, nil)
	if err != nil {
		return nil, refuse("is damaged: " + err.Error())
	}
	y, err := prev.YAML()
	if err != nil {
		return nil, refuse("is damaged: " + err.Error())
	}
	if string(y) != string(data) && !olderArchive(data, y) {
		return nil, refuse("is not the configuration as archived (edited or truncated)")
	}
	if !hasDigest {
		if err := WriteFileAtomic(r.Path(configDigestFile), digestLine(data)); err != nil {
			return nil, err
		}
	}
	return prev, nil
}

// ChangesFile records the configuration changes a resume made on purpose
// (dama train --allow-change): one ConfigChange per line, so the run's
// configuration at any generation can be told from the archive and the
// changes after it.
const ChangesFile = "config-changes.jsonl"

// ConfigChangeVersion is the format version of ChangesFile's lines.
const ConfigChangeVersion = 1

// ConfigChange is one resume that changed keys outside SafeResumeKeys.
type ConfigChange struct {
	Version    int               `json:"version"`
	Generation int               `json:"generation"` // the first generation run with the new values
	Time       time.Time         `json:"time"`
	Changes    []configs.KeyDiff `json:"changes"`
}

// CheckAllowChange checks the keys a resume may change on request (the
// allow of ResumeConfig, checked once by train.Loop): known keys, none of
// model.* (they fix the network's shape, so the run's
// checkpoints would no longer load).
func CheckAllowChange(keys []string) error {
	known := configs.Keys()
	for _, k := range keys {
		switch {
		case !slices.Contains(known, k):
			return fmt.Errorf("--allow-change: unknown configuration key %q", k)
		case strings.HasPrefix(k, "model."):
			return fmt.Errorf("--allow-change: %s cannot change in a run (the model.* keys fix the network's shape); start a new run with --init instead", k)
		}
	}
	return nil
}

// NextGeneration returns the generation a resume runs next: one past the
// last generation record in a row from 1.
func (r *Run) NextGeneration() int {
	gen := 1
	for {
		if _, err := os.Stat(r.Path(GenerationsDir, recordFile(gen))); err != nil {
			return gen
		}
		gen++
	}
}

// ResumeConfig compares the archived configuration prev with the one asked
// for, cfg (whose YAML is y): equal, or different only in SafeResumeKeys
// and the keys in allow (then the archive is updated and the change
// logged; a change of a key in allow is also recorded in ChangesFile),
// or an error naming the keys that differ.
func (r *Run) ResumeConfig(prev, cfg *configs.Config, y []byte, log io.Writer, allow []string) error {
	diff := configs.Diff(prev, cfg)
	var unsafe, safe []string
	var changed []configs.KeyDiff
	for _, d := range diff {
		switch {
		case slices.Contains(SafeResumeKeys, d.Key):
			safe = append(safe, d.String())
		case slices.Contains(allow, d.Key):
			safe = append(safe, d.String())
			changed = append(changed, d)
		default:
			unsafe = append(unsafe, d.String())
		}
	}
	if len(unsafe) > 0 {
		return fmt.Errorf("runfolder: run folder %s was started with another configuration: %s differ from %s; resume it with the same configuration (keys that may change on resume: %s; others with --allow-change KEY, recorded in %s) or start a new --run",
			r.Dir, strings.Join(unsafe, ", "), r.Path(ConfigFile), strings.Join(SafeResumeKeys, ", "), ChangesFile)
	}
	if len(safe) == 0 {
		return nil
	}
	if len(changed) > 0 {
		// The record first: a kill before the archive is rewritten leaves
		// a record the next resume (with the same request) repeats, never
		// a changed archive without its record.
		gen := r.NextGeneration()
		rec := ConfigChange{Version: ConfigChangeVersion, Generation: gen, Time: time.Now().UTC(), Changes: changed}
		if err := r.AppendJSONL(ChangesFile, rec); err != nil {
			return err
		}
		fmt.Fprintf(log, "resuming %s with %s from generation %d (recorded in %s)\n", r.Dir, strings.Join(safe, ", "), gen, ChangesFile)
	} else {
		fmt.Fprintf(log, "resuming %s with %s\n", r.Dir, strings.Join(safe, ", "))
	}
	return r.WriteConfig(y)
}

// ReadChanges returns the run's recorded configuration changes, oldest
// first (none when the file does not exist); a line of another version is
// refused.
func (r *Run) ReadChanges() ([]ConfigChange, error) {
	var out []ConfigChange
	err := ReadJSONL(r, ChangesFile, func(c ConfigChange) error {
		if c.Version != ConfigChangeVersion {
			return fmt.Errorf("%s: a line of format version %d, this build reads %d", r.Path(ChangesFile), c.Version, ConfigChangeVersion)
		}
		out = append(out, c)
		return nil
	})
	return out, err
}

// removeTemps removes the temporary files (atomicfile's ".NAME.tmp*") in
// the run's subfolder sub whose names start with "."+prefix, and returns
// how many it removed.
func (r *Run) removeTemps(sub, prefix string) (int, error) {
	ents, err := os.ReadDir(r.Path(sub))
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasPrefix(name, "."+prefix) || !strings.Contains(name, ".tmp") {
			continue
		}
		if err := os.Remove(r.Path(sub, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return n, err
		}
		n++
	}
	return n, nil
}

// RemoveTrainerTemps removes the temporary files a killed trainer can
// leave: in the run folder and the folders only the trainer writes, and
// the chunks of its own self-play. The trainer holds the run's lock, so
// none of them is being written.
func (r *Run) RemoveTrainerTemps() (int, error) {
	total := 0
	for _, sub := range []string{"", CandidatesDir, AcceptedDir, RejectedDir, GenerationsDir, PlotsDir} {
		n, err := r.removeTemps(sub, "")
		total += n
		if err != nil {
			return total, err
		}
	}
	n, err := r.RemoveWorkerTemps(TrainerWorker)
	return total + n, err
}

// TrainerWorker is the worker name of the self-play a trainer plays itself
// (its chunk files are chunk-main-NNNNNN).
const TrainerWorker = "main"

// RemoveWorkerTemps removes the temporary chunk files of worker in the
// run's games folder, which a killed worker of that name left (worker
// names are unique among a run's running workers), and returns how many.
func (r *Run) RemoveWorkerTemps(worker string) (int, error) {
	return r.removeTemps(GamesDir, "chunk-"+worker+"-")
}

// CheckRecords reads every record a resume builds on: each line of
// metrics.jsonl and arena.jsonl, and each generation record, whose
// generation and running totals must follow on.
func (r *Run) CheckRecords() error {
	refuse := func(err error) error {
		return fmt.Errorf("runfolder: resume refused, a run record is damaged: %v; fix or remove the damaged record", err)
	}
	if err := ReadJSONL(r, MetricsFile, func(MetricRecord) error { return nil }); err != nil {
		return refuse(err)
	}
	if err := ReadJSONL(r, ArenaFile, func(ArenaRecord) error { return nil }); err != nil {
		return refuse(err)
	}
	var prev *GenerationRecord
	for gen := 1; ; gen++ {
		path := r.Path(GenerationsDir, recordFile(gen))
		if _, err := os.Stat(path); err != nil {
			return nil
		}
		rec, err := r.ReadRecord(gen)
		if err != nil {
			return refuse(err)
		}
		switch {
		case rec.Gen != gen:
			return refuse(fmt.Errorf("%s holds generation %d", path, rec.Gen))
		case rec.Games < 0 || rec.TotalGames < rec.Games || (prev != nil && rec.TotalGames < prev.TotalGames+rec.Games):
			return refuse(fmt.Errorf("%s: total games %d do not follow from the previous total and this generation's %d games", path, rec.TotalGames, rec.Games))
		}
		prev = rec
	}
}

// olderArchive reports whether data, an archived configuration that differs
// from its rendering y by the running version, is what an older version
// wrote: y's lines in order, less lines of keys added since
// (configs.LaterKeys), which take their defaults. Anything else (an edited
// line, reordered or foreign content) is not.
func olderArchive(data, y []byte) bool {
	have := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	want := strings.Split(strings.TrimSuffix(string(y), "\n"), "\n")
	section, i := "", 0
	for _, line := range want {
		if !strings.HasPrefix(line, " ") {
			section, _, _ = strings.Cut(line, ":")
		}
		if i < len(have) && have[i] == line {
			i++
			continue
		}
		key, _, _ := strings.Cut(strings.TrimSpace(line), ":")
		if !strings.HasPrefix(line, " ") || !slices.Contains(configs.LaterKeys, section+"."+key) {
			return false
		}
	}
	return i == len(have)
}
