package configs

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Removed keys. What lost its A/B leaves the code (docs/experiments.md
// keeps the record, git the code), but not the run folders: every
// config.yaml archived before holds every key of its day, such as
// "root_search: puct", and its digests. So each removed key keeps a row
// here with the value at which it did nothing (off):
//
//   - set to that value (a file, an archived config.yaml, a DAMA_
//     variable, an override), it is accepted and changes nothing, as it
//     changed nothing then;
//   - set to any other value, it is refused with one line naming the key,
//     saying it was removed and where its record is (*RemovedError);
//   - Digest hashes the configuration with every row back at its off
//     value, on the line config.yaml wrote it (after the key before it),
//     so that every configuration keeps the digest it had;
//   - runfolder takes a line of an archived config.yaml that sets a
//     removed key to its off value for what an older version wrote
//     (RemovedAtOff), so that the run resumes against its config.sha256.
//
// A row is never deleted: an archive may name its key for good. The rows
// are in the order of config.yaml's lines, so that a row's after may be
// the key of a row above it.
var removedKeys = []removedKey{
	{"model.aux_reply", "model.value_hidden", false, replyRecord},
	{"selfplay.solver", "selfplay.backend", false, solverRecord},
	{"selfplay.forced_playouts_k", "selfplay.pass_forced", 0.0, forcedRecord},
	{"selfplay.policy_target_pruning", "selfplay.forced_playouts_k", false, forcedRecord},
	{"selfplay.root_search", "selfplay.policy_target_pruning", "puct", gumbelRecord},
	{"selfplay.gumbel_m", "selfplay.root_search", 16, gumbelRecord},
	{"selfplay.gumbel_c_visit", "selfplay.gumbel_m", 50.0, gumbelRecord},
	{"selfplay.gumbel_c_scale", "selfplay.gumbel_c_visit", 1.0, gumbelRecord},
	{"train.aux_reply_weight", "train.value_target_mix", 0.15, replyRecord},
}

// The records of the removed keys: what the key did, where its A/B is,
// and the last commit with its code (git checkout or revert brings it back).
var (
	solverRecord = removal{"the self-play solver switch showed no effect in its A/B, and the hybrid mm still turns the solver on", "docs/experiments.md#the-learning-techniques-at-small-size", "0edde8a"}
	forcedRecord = removal{"forced playouts with policy target pruning lost their A/B", "docs/experiments.md#the-learning-techniques-at-small-size", "0edde8a"}
	replyRecord  = removal{"the opponent-reply head was not shown to help in its A/B", "docs/experiments.md#the-opponent-reply-head", "0edde8a"}
	gumbelRecord = removal{"Gumbel root search lost its A/B", "docs/experiments.md#the-learning-techniques-at-small-size", "0edde8a"}
)

// removal is the record of a removed experiment.
type removal struct {
	what   string // what it was and how it fared
	record string // the page and section of its A/B
	last   string // the last commit that had it
}

// removedKey is a key that left the configuration.
type removedKey struct {
	key   string // dotted
	after string // the key whose line came just before it in config.yaml
	off   any    // the value at which it did nothing, of the key's type
	why   removal
}

// RemovedError is a removed key set to a value other than its off value.
type RemovedError struct {
	Key    string // dotted, e.g. "selfplay.root_search"
	Value  string // the value asked for, as given
	Source string // where it was set, when known: "FILE:LINE", "override ...", "environment variable ..."
	why    removal
}

func (e *RemovedError) Error() string {
	var b strings.Builder
	b.WriteString("configs: ")
	if e.Source != "" {
		b.WriteString(e.Source + ": ")
	}
	fmt.Fprintf(&b, "%s: %s was removed (%s: %s; last in commit %s)", e.Key, e.Value, e.why.what, e.why.record, e.why.last)
	return b.String()
}

// removedRow returns the row of a removed key.
func removedRow(key string) (removedKey, bool) {
	i := slices.IndexFunc(removedKeys, func(r removedKey) bool { return r.key == key })
	if i < 0 {
		return removedKey{}, false
	}
	return removedKeys[i], true
}

// isOff reports whether value, as a file, the environment or an override
// gives it, is the row's off value.
func (r removedKey) isOff(value string) bool {
	v, want := convert(strings.TrimSpace(value), reflect.TypeOf(r.off).Kind())
	return want == "" && v == r.off
}

// checkRemoved returns, for a removed key, whether it is (removed) and the
// error of value when that is not its off value; source says where it was
// set (RemovedError.Source).
func checkRemoved(key, value, source string) (removed bool, err error) {
	r, ok := removedRow(key)
	if !ok {
		return false, nil
	}
	if r.isOff(value) {
		return true, nil
	}
	return true, &RemovedError{Key: key, Value: value, Source: source, why: r.why}
}

// RemovedAtOff reports whether key is a removed key and value, the text
// of its line in an archived config.yaml, the value at which it did
// nothing: such a line is what an older version wrote, and reads as if it
// were absent.
func RemovedAtOff(key, value string) bool {
	r, ok := removedRow(key)
	return ok && r.isOff(value)
}

// CheckRemoved returns nil unless key is a removed key and value is not
// its off value, and then the *RemovedError that says so (for records
// that name keys, such as a run's configuration changes).
func CheckRemoved(key, value string) error {
	_, err := checkRemoved(key, value, "")
	return err
}

// digestForm returns what Digest hashes: YAML() with every removed key
// back at its off value, on the line after the key it followed (the form
// in which the versions before its removal hashed the same settings).
func (c *Config) digestForm() ([]byte, error) {
	y, err := c.YAML()
	if err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(string(y), "\n")
	for _, r := range removedKeys {
		section, after, _ := strings.Cut(r.after, ".")
		_, key, _ := strings.Cut(r.key, ".")
		i := sectionLine(lines, section, after)
		if i < 0 {
			return nil, fmt.Errorf("configs: the digest's form has no line %s for %s", r.after, r.key)
		}
		v, err := yaml.Marshal(r.off)
		if err != nil {
			return nil, err
		}
		lines = slices.Insert(lines, i+1, "    "+key+": "+string(v))
	}
	return []byte(strings.Join(lines, "")), nil
}

// sectionLine returns the index of the line of key in section of a
// configuration's YAML, or -1.
func sectionLine(lines []string, section, key string) int {
	in := false
	for i, l := range lines {
		if !strings.HasPrefix(l, " ") {
			in = l == section+":\n"
			continue
		}
		if in && strings.HasPrefix(l, "    "+key+":") {
			return i
		}
	}
	return -1
}

// isRemoved reports whether key is a removed key.
func isRemoved(key string) bool {
	_, ok := removedRow(key)
	return ok
}
