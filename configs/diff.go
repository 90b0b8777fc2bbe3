package configs

import (
	"fmt"
	"reflect"
	"strings"
)

// KeyDiff is one key whose value differs between two configurations.
type KeyDiff struct {
	Key string `json:"key"` // dotted, e.g. "selfplay.visits"
	Old string `json:"old"` // the value before, formatted
	New string `json:"new"` // the value after
}

// String formats the difference as "key (old -> new)".
func (d KeyDiff) String() string { return fmt.Sprintf("%s (%s -> %s)", d.Key, d.Old, d.New) }

// Diff lists the keys whose values differ from a to b, in the order of
// Config.
func Diff(a, b *Config) []KeyDiff {
	var out []KeyDiff
	var walk func(prefix string, x, y reflect.Value)
	walk = func(prefix string, x, y reflect.Value) {
		t := x.Type()
		for i := range t.NumField() {
			k := prefix + t.Field(i).Tag.Get("mapstructure")
			fx, fy := x.Field(i), y.Field(i)
			if k == "-" {
				continue // the schedule, compared below
			}
			if fx.Kind() == reflect.Struct {
				walk(k+".", fx, fy)
				continue
			}
			if !reflect.DeepEqual(fx.Interface(), fy.Interface()) {
				out = append(out, KeyDiff{Key: k, Old: fmt.Sprint(fx.Interface()), New: fmt.Sprint(fy.Interface())})
			}
		}
	}
	walk("", reflect.ValueOf(*a), reflect.ValueOf(*b))
	if !reflect.DeepEqual(a.Schedule, b.Schedule) {
		out = append(out, KeyDiff{Key: ScheduleKey, Old: scheduleSummary(a), New: scheduleSummary(b)})
	}
	return out
}

// scheduleSummary describes a schedule in one line for a KeyDiff.
func scheduleSummary(c *Config) string {
	if len(c.Schedule) == 0 {
		return "none"
	}
	var parts []string
	for _, p := range c.Schedule {
		parts = append(parts, fmt.Sprintf("from %d: %s", p.Generation, p.Describe()))
	}
	return "[" + strings.Join(parts, "; ") + "]"
}
