package runfolder

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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

// configPendingFile holds the digest of a config.yaml being archived.
// WriteConfig writes it first, then config.yaml, then renames it to
// config.sha256: a kill at any step leaves the old pair (and perhaps a
// stale pending digest), or the new config.yaml with its digest pending,
// which the trainer's next read completes (ReadArchivedConfig) and a
// worker accepts (Config). Never a config.yaml that no digest vouches for.
const configPendingFile = configDigestFile + ".pending"

// configWriteStep, when set (by tests), is called after each step of
// WriteConfig; an error stops the write there, as a kill would.
var configWriteStep func(step int) error

// WriteConfig archives the configuration (its YAML y) and its digest, so
// that no kill leaves the two disagreeing (see configPendingFile).
func (r *Run) WriteConfig(y []byte) error {
	steps := []func() error{
		func() error { return WriteFileAtomic(r.Path(configPendingFile), digestLine(y)) },
		func() error { return WriteFileAtomic(r.Path(ConfigFile), y) },
		func() error { return renameDurable(r.Path(configPendingFile), r.Path(configDigestFile)) },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			return err
		}
		if configWriteStep != nil {
			if err := configWriteStep(i + 1); err != nil {
				return err
			}
		}
	}
	return nil
}

// renameDurable renames from to to and syncs the folder, so that the new
// name survives a power loss (best effort where a folder cannot be synced).
func renameDurable(from, to string) error {
	if err := os.Rename(from, to); err != nil {
		return fmt.Errorf("runfolder: %w", err)
	}
	if d, err := os.Open(filepath.Dir(to)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// readOptional returns the content of path, or nil when it does not exist.
func readOptional(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// digestState compares data, the content of config.yaml, with the
// archived digest and the pending one: match is "digest", "pending" or ""
// (neither vouches for data); hasDigest reports whether config.sha256
// exists.
func (r *Run) digestState(data []byte) (match string, hasDigest, hasPending bool, err error) {
	want := string(digestLine(data))
	d, err := readOptional(r.Path(configDigestFile))
	if err != nil {
		return "", false, false, err
	}
	p, err := readOptional(r.Path(configPendingFile))
	if err != nil {
		return "", false, false, err
	}
	switch {
	case d != nil && string(d) == want:
		match = "digest"
	case p != nil && string(p) == want:
		match = "pending"
	}
	return match, d != nil, p != nil, nil
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
// configuration. It is the trainer's read (under the run's lock): a write
// a kill interrupted is completed (the pending digest vouches for data) or
// dropped (the old pair stands), and a run folder from before the digest
// gets one.
func (r *Run) ReadArchivedConfig(data []byte) (*configs.Config, error) {
	path := r.Path(ConfigFile)
	refuse := func(why string) error {
		return fmt.Errorf("runfolder: %s %s; resume refused: restore the archived file (or start a new --run)", path, why)
	}
	match, hasDigest, hasPending, err := r.digestState(data)
	if err != nil {
		return nil, err
	}
	if match == "" && hasDigest {
		return nil, refuse("was changed since the run archived it (its digest in " + configDigestFile + " differs)")
	}
	if match == "" && !hasDigest && r.Started() {
		// Only runs from before the digest have none (their archive is
		// checked below as an older one); a digest deleted from a later
		// run would let an edited archive through unseen.
		return nil, fmt.Errorf("runfolder: %s is missing from a run that has started, so nothing vouches for %s; resume refused: restore %s, or, if %s is the configuration the run archived, write the line %q into it",
			r.Path(configDigestFile), path, configDigestFile, ConfigFile, strings.TrimSpace(string(digestLine(data))))
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
	switch {
	case match == "pending":
		// A kill after config.yaml was written, before its digest was
		// renamed into place: complete the write.
		if err := renameDurable(r.Path(configPendingFile), r.Path(configDigestFile)); err != nil {
			return nil, err
		}
	case !hasDigest:
		// An archive from before the digest.
		if err := WriteFileAtomic(r.Path(configDigestFile), digestLine(data)); err != nil {
			return nil, err
		}
		fallthrough
	case hasPending:
		// A kill before config.yaml was replaced: the old pair stands.
		if err := os.Remove(r.Path(configPendingFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	return prev, nil
}

// Config reads the archived configuration as a process other than the
// trainer does (a self-play worker): config.yaml must agree with its
// digest, or with the pending digest of a write in progress; an edited,
// emptied or replaced file is refused with an error naming it. A run folder
// with no config.yaml or no digest yet (its trainer has not archived the
// configuration) gives an error wrapping os.ErrNotExist.
func (r *Run) Config() (*configs.Config, error) {
	path := r.Path(ConfigFile)
	for attempt := 0; ; attempt++ {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("runfolder: %w", err)
		}
		match, hasDigest, _, err := r.digestState(data)
		if err != nil {
			return nil, fmt.Errorf("runfolder: %w", err)
		}
		switch {
		case match != "":
			cfg, err := configs.Load(path, nil, nil)
			if err != nil {
				return nil, fmt.Errorf("runfolder: %s: %w", path, err)
			}
			if again, err := os.ReadFile(path); err == nil && string(again) == string(data) {
				return cfg, nil
			}
			// Replaced between the two reads: read again.
		case !hasDigest:
			return nil, fmt.Errorf("runfolder: %s has no digest (%s) yet: %w", path, configDigestFile, os.ErrNotExist)
		case attempt >= 2:
			return nil, fmt.Errorf("runfolder: %s does not match its digest in %s (edited, emptied or replaced since the trainer archived it); restore the archived file or restart the trainer", path, configDigestFile)
		}
		if attempt >= 4 {
			return nil, fmt.Errorf("runfolder: %s keeps changing while it is read", path)
		}
		// A trainer may be archiving a new configuration at this moment.
		time.Sleep(50 * time.Millisecond)
	}
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
	// Phase is the schedule's phase (from 1) that made the change, 0 for
	// a resume with --allow-change.
	Phase int `json:"phase,omitempty"`
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

// AllowChangeKeys returns the keys the values of --allow-change name,
// each a key or a comma-separated list of keys (KEY,KEY), spaces around
// each ignored; an empty key is an error. CheckAllowChange checks them.
func AllowChangeKeys(values []string) ([]string, error) {
	var keys []string
	for _, a := range values {
		for k := range strings.SplitSeq(a, ",") {
			if k = strings.TrimSpace(k); k == "" {
				return nil, fmt.Errorf("--allow-change %q: want configuration keys, e.g. selfplay.visits or selfplay.visits,arena.games", a)
			}
			keys = append(keys, k)
		}
	}
	return keys, nil
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
	next := r.NextGeneration()
	for _, d := range diff {
		switch {
		case d.Key == configs.ScheduleKey && configs.FuturePhasesOnly(prev.Schedule, cfg.Schedule, next-1):
			// Phases not yet begun change nothing computed so far.
			safe = append(safe, fmt.Sprintf("the schedule's phases from generation %d on (%s -> %s)", next, d.Old, d.New))
		case slices.Contains(SafeResumeKeys, d.Key):
			safe = append(safe, d.String())
		case slices.Contains(allow, d.Key):
			safe = append(safe, d.String())
			changed = append(changed, d)
		case d.Key == configs.ScheduleKey:
			unsafe = append(unsafe, fmt.Sprintf("the schedule's phases up to generation %d, which the run has begun (%s -> %s; phases from generation %d on may change)", next-1, d.Old, d.New, next))
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
		// a record the next resume (with the same request) finds, never
		// a changed archive without its record.
		// A record a killed resume left (the same changes from the same
		// generation) is not written twice.
		if err := r.recordChange(next, 0, changed); err != nil {
			return err
		}
		fmt.Fprintf(log, "resuming %s with %s from generation %d (recorded in %s)\n", r.Dir, strings.Join(safe, ", "), next, ChangesFile)
	} else {
		fmt.Fprintf(log, "resuming %s with %s\n", r.Dir, strings.Join(safe, ", "))
	}
	return r.WriteConfig(y)
}

// recordChange appends a change from generation gen to ChangesFile, unless
// its last line is that change already (a kill between the record and the
// archive's rewrite, then the same resume or phase again).
func (r *Run) recordChange(gen, phase int, changed []configs.KeyDiff) error {
	past, err := r.ReadChanges()
	if err != nil {
		return err
	}
	if n := len(past); n > 0 && past[n-1].Generation == gen && slices.Equal(past[n-1].Changes, changed) {
		return nil
	}
	rec := ConfigChange{Version: ConfigChangeVersion, Generation: gen, Time: time.Now().UTC(), Changes: changed, Phase: phase}
	return r.AppendJSONL(ChangesFile, rec)
}

// ChangeConfig makes the configuration whose YAML is y the run's from
// generation gen on, as the schedule's phase (from 1) asks: the change is
// recorded in ChangesFile first, then the archive is rewritten (a kill in
// between leaves a record that the same change, made again, does not
// repeat).
func (r *Run) ChangeConfig(gen, phase int, changed []configs.KeyDiff, y []byte) error {
	if err := r.recordChange(gen, phase, changed); err != nil {
		return err
	}
	return r.WriteConfig(y)
}

// ReadChanges returns the run's recorded configuration changes, oldest
// first (none when the file does not exist), each line checked: this
// format version, a generation from 1 up to the next one to run and none
// before the line above's, and at least one change, each of a known key
// that may change in a run (not model.*) to a value valid in the
// configuration it made: the run's archived one (ConfigFile) with the old
// values of the later changes and this line's new ones, so a value is
// checked against the rest of the run's configuration (train.window_min
// against the run's train.window_max), not against the defaults. A line
// that fails is an error naming the file and the line.
func (r *Run) ReadChanges() ([]ConfigChange, error) {
	var out []ConfigChange
	var lines []int
	next, known := r.NextGeneration(), configs.Keys()
	err := readJSONLines(r, ChangesFile, func(line int, c ConfigChange) error {
		switch {
		case c.Version != ConfigChangeVersion:
			return fmt.Errorf("a line of format version %d, this build reads %d", c.Version, ConfigChangeVersion)
		case c.Generation < 1 || c.Generation > next:
			return fmt.Errorf("generation %d, want 1 to %d (the next generation to run)", c.Generation, next)
		case len(out) > 0 && c.Generation < out[len(out)-1].Generation:
			return fmt.Errorf("generation %d comes before generation %d of the line above", c.Generation, out[len(out)-1].Generation)
		case len(c.Changes) == 0:
			return errors.New("no changes")
		}
		for _, d := range c.Changes {
			if err := cmp.Or(configs.CheckRemoved(d.Key, d.Old), configs.CheckRemoved(d.Key, d.New)); err != nil {
				return err // a change of a key removed since, to or from a value that did something
			}
			switch {
			case !slices.Contains(known, d.Key):
				return fmt.Errorf("unknown configuration key %q", d.Key)
			case strings.HasPrefix(d.Key, "model."):
				return fmt.Errorf("%s cannot change in a run (the model.* keys fix the network's shape)", d.Key)
			}
		}
		out = append(out, c)
		lines = append(lines, line)
		return nil
	})
	if err != nil || len(out) == 0 {
		return out, err
	}
	archive := r.Path(ConfigFile)
	if _, err := os.Stat(archive); err != nil {
		archive = "" // no archive yet: the defaults
	}
	var undo []string // the old values of the changes after line i, newest first
	for i := len(out) - 1; i >= 0; i-- {
		sets := slices.Clone(undo)
		for _, d := range out[i].Changes {
			sets = append(sets, d.Key+"="+d.New)
		}
		if _, err := configs.Load(archive, nil, sets); err != nil {
			var keys []string
			for _, d := range out[i].Changes {
				keys = append(keys, fmt.Sprintf("%s=%q", d.Key, d.New))
			}
			return nil, fmt.Errorf("runfolder: %s line %d: new values %s: %v", r.Path(ChangesFile), lines[i], strings.Join(keys, ", "), err)
		}
		for _, d := range out[i].Changes {
			undo = append(undo, d.Key+"="+d.Old)
		}
	}
	return out, nil
}

// SelfPlayHistory returns every self-play section the run has played by,
// newest first: the archived configuration's (read as Config reads it),
// then, for each change recorded in ChangesFile from the newest back, the
// section before it, rebuilt from the archive with the old values of that
// change and of every change after it. Chunks written before a change, or
// by workers still on an older configuration, were played by one of them.
func (r *Run) SelfPlayHistory() ([]configs.SelfPlay, error) {
	path := r.Path(ConfigFile)
	for attempt := 0; ; attempt++ {
		before, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("runfolder: %w", err)
		}
		cur, err := r.Config()
		if err != nil {
			return nil, err
		}
		changes, err := r.ReadChanges()
		if err != nil {
			return nil, err
		}
		out := []configs.SelfPlay{cur.SelfPlay}
		var undo []string
		for i := len(changes) - 1; i >= 0; i-- {
			for _, d := range changes[i].Changes {
				undo = append(undo, d.Key+"="+d.Old)
			}
			past, err := configs.Load(path, nil, undo)
			if err != nil {
				return nil, fmt.Errorf("runfolder: %s: the configuration before generation %d (%s with the old values of the changes since): %w", r.Path(ChangesFile), changes[i].Generation, path, err)
			}
			out = append(out, past.SelfPlay)
		}
		if after, err := os.ReadFile(path); err == nil && bytes.Equal(before, after) {
			return out, nil
		}
		if attempt >= 4 {
			return nil, fmt.Errorf("runfolder: %s keeps changing while it is read", path)
		}
		// A trainer may be archiving a new configuration at this moment.
		time.Sleep(50 * time.Millisecond)
	}
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
// metrics.jsonl (ReadMetrics), arena.jsonl and config-changes.jsonl
// (ReadChanges), each generation record, whose generation and running
// totals must follow on, and each plan (Plans), whose chunks and counts
// must be those of its generation's record.
func (r *Run) CheckRecords() error {
	refuse := func(err error) error {
		return fmt.Errorf("runfolder: resume refused, a run record is damaged: %s; fix or remove the damaged record", strings.TrimPrefix(err.Error(), "runfolder: "))
	}
	if err := ReadMetrics(r, func(MetricRecord) error { return nil }); err != nil {
		return refuse(err)
	}
	if err := ReadJSONL(r, ArenaFile, func(ArenaRecord) error { return nil }); err != nil {
		return refuse(err)
	}
	if _, err := r.ReadChanges(); err != nil {
		return refuse(err)
	}
	var recs []*GenerationRecord
	for gen := 1; ; gen++ {
		path := r.Path(GenerationsDir, recordFile(gen))
		if _, err := os.Stat(path); err != nil {
			if later, ok := r.laterRecord(gen); ok {
				return fmt.Errorf("runfolder: %s, the record of generation %d, is missing, but %s follows; resume refused: restore it (a resume would play generation %d again after the later ones)", path, gen, later, gen)
			}
			break
		}
		rec, err := r.ReadRecord(gen)
		if err != nil {
			return refuse(err)
		}
		switch {
		case rec.Gen != gen:
			return refuse(fmt.Errorf("%s holds generation %d", path, rec.Gen))
		case rec.Games < 0 || rec.TotalGames < rec.Games || (len(recs) > 0 && rec.TotalGames < recs[len(recs)-1].TotalGames+rec.Games):
			return refuse(fmt.Errorf("%s: total games %d do not follow from the previous total and this generation's %d games", path, rec.TotalGames, rec.Games))
		}
		recs = append(recs, rec)
	}
	last := 0
	err := ReadLadder(r, func(l LadderRecord) error {
		switch {
		case l.Gen > len(recs):
			return fmt.Errorf("a rating after generation %d, which is not complete (the last complete one is %d)", l.Gen, len(recs))
		case l.Gen < last:
			return fmt.Errorf("a rating after generation %d follows one after generation %d", l.Gen, last)
		}
		last = l.Gen
		return nil
	})
	if err != nil {
		return refuse(err)
	}
	plans, err := r.Plans(len(recs) + 1)
	if err != nil {
		return refuse(err)
	}
	for _, p := range plans {
		if p.Gen > len(recs) {
			continue // the generation in progress
		}
		rec := recs[p.Gen-1]
		games, positions := 0, 0
		names := make([]string, len(p.Chunks))
		for i, c := range p.Chunks {
			games += c.Games
			positions += c.Positions
			names[i] = c.Name
		}
		if games != rec.Games || positions != rec.Positions || !slices.Equal(names, rec.Chunks) {
			return refuse(fmt.Errorf("%s: %d chunks, %d games and %d positions, its record %s has %d, %d and %d",
				r.Path(GenerationsDir, planFile(p.Gen)), len(names), games, positions, recordFile(p.Gen), len(rec.Chunks), rec.Games, rec.Positions))
		}
	}
	return nil
}

// laterRecord returns the path of a generation record after generation
// gen, if there is one.
func (r *Run) laterRecord(gen int) (string, bool) {
	paths, _ := filepath.Glob(r.Path(GenerationsDir, "[0-9][0-9][0-9][0-9]*.json"))
	for _, p := range paths {
		base := strings.TrimSuffix(filepath.Base(p), ".json")
		if g, err := strconv.Atoi(base); err == nil && g > gen && recordFile(g) == filepath.Base(p) {
			return p, true
		}
	}
	return "", false
}

// olderArchive reports whether data, an archived configuration that differs
// from its rendering y by the running version, is what an older version
// wrote: y's lines in order, less lines of keys added since
// (configs.LaterKeys), which take their defaults, and with lines of keys
// removed since at the value at which they did nothing
// (configs.RemovedAtOff). Anything else (an edited line, reordered or
// foreign content) is not.
func olderArchive(data, y []byte) bool {
	var have []string
	section := ""
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if !strings.HasPrefix(line, " ") {
			section, _, _ = strings.Cut(line, ":")
		} else if key, val, ok := strings.Cut(strings.TrimSpace(line), ": "); ok && configs.RemovedAtOff(section+"."+key, val) {
			continue
		}
		have = append(have, line)
	}
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
