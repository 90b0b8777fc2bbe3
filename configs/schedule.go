package configs

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// ScheduleKey is the top-level key of the schedule: a list of phases, each
// the values some keys take from a generation on. A run's configuration is
// its keys as written (generation 1 onwards) with every phase begun applied
// in order (Config.At); the workstation preset's schedule is the recipe of
// the shipped model:
//
//	schedule:
//	  - generation: 40
//	    note: a lower rate once the network plays well
//	    set:
//	      train.lr: 0.0003
//	      selfplay.hybrids: mm4,cmb3,ip3
//
// A phase sets any key except run.*, model.* (the network's shape),
// version and selfplay.tables (opened once when a run starts). A key the
// schedule sets keeps its phase value over a --set or environment value of
// the same key from the phase's generation on: to change a scheduled key,
// change the schedule (an overlay with its own schedule: key replaces the
// base's whole list). An overlay without a schedule: key keeps its base's.
const ScheduleKey = "schedule"

// MaxPhases bounds the phases of a schedule.
const MaxPhases = 64

// Phase is one step of a schedule: from Generation on, the keys of Set take
// its values.
type Phase struct {
	// Generation is the first generation that plays and trains with the
	// phase's values, 2..10^6 (generation 1 runs by the keys as written),
	// above the phase before's.
	Generation int `yaml:"generation"`
	// Note says why, printed when the phase begins and written on the
	// model card; at most 200 characters.
	Note string `yaml:"note,omitempty"`
	// Set maps dotted keys to their values, each of its key's type.
	Set map[string]any `yaml:"set"`
}

// maxNote is the longest phase note.
const maxNote = 200

// schedulable reports why key may not be set by a phase ("" when it may).
func schedulable(key string) string {
	switch {
	case strings.HasPrefix(key, "run."):
		return "run.* keys say how a run is driven, not what it computes; set them for the whole run"
	case strings.HasPrefix(key, "model."):
		return "model.* keys fix the network's shape for the whole run"
	case key == "version":
		return "the format version is the file's"
	case key == "selfplay.tables":
		return "endgame tables are opened once when a run starts; set selfplay.tables for the whole run"
	}
	return ""
}

// At returns the configuration generation gen runs by: c with the values
// of every phase whose generation is at most gen applied in order. The
// schedule itself is kept, so At's result archives and digests with it.
func (c *Config) At(gen int) Config {
	out := *c
	for _, p := range c.Schedule {
		if p.Generation > gen {
			break
		}
		for _, k := range p.keys() {
			// Validate checked every value against its key's type.
			_ = out.setKey(k, p.Set[k])
		}
	}
	return out
}

// PhaseAt returns the number of phases begun by generation gen (0: the
// keys as written).
func (c *Config) PhaseAt(gen int) int {
	n := 0
	for _, p := range c.Schedule {
		if p.Generation <= gen {
			n++
		}
	}
	return n
}

// keys returns the phase's keys in the order of Config.
func (p Phase) keys() []string {
	var out []string
	for _, k := range Keys() {
		if _, ok := p.Set[k]; ok {
			out = append(out, k)
		}
	}
	return out
}

// Describe formats the phase's values as "key=value, ..." in the order of
// Config.
func (p Phase) Describe() string {
	var parts []string
	for _, k := range p.keys() {
		parts = append(parts, fmt.Sprintf("%s=%v", k, p.Set[k]))
	}
	return strings.Join(parts, ", ")
}

// ScheduleText describes the schedule, one line a phase, for logs and the
// model card; "" without one.
func (c *Config) ScheduleText() string {
	var b strings.Builder
	for i, p := range c.Schedule {
		fmt.Fprintf(&b, "phase %d from generation %d: %s", i+1, p.Generation, p.Describe())
		if p.Note != "" {
			fmt.Fprintf(&b, ": %s", p.Note)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// setKey sets the field of the dotted key to val, converted to the field's
// type; an unknown key or a value of the wrong type is an error.
func (c *Config) setKey(key string, val any) error {
	f, ok := fieldOf(reflect.ValueOf(c).Elem(), key)
	if !ok {
		return fmt.Errorf("unknown key %q%s", key, suggest(key))
	}
	conv, want := convert(val, f.Kind())
	if want != "" {
		return fmt.Errorf("%s = %v: want %s", key, val, want)
	}
	f.Set(reflect.ValueOf(conv).Convert(f.Type()))
	return nil
}

// fieldOf finds the settable field of a dotted key in the Config value v.
func fieldOf(v reflect.Value, key string) (reflect.Value, bool) {
	section, name, dotted := strings.Cut(key, ".")
	if !dotted {
		name, section = section, ""
	}
	find := func(v reflect.Value, tag string) (reflect.Value, bool) {
		t := v.Type()
		for i := range t.NumField() {
			if t.Field(i).Tag.Get("mapstructure") == tag {
				return v.Field(i), true
			}
		}
		return reflect.Value{}, false
	}
	if section != "" {
		s, ok := find(v, section)
		if !ok || s.Kind() != reflect.Struct {
			return reflect.Value{}, false
		}
		v = s
	}
	f, ok := find(v, name)
	if !ok || f.Kind() == reflect.Struct || f.Kind() == reflect.Slice {
		return reflect.Value{}, false
	}
	return f, true
}

// validateSchedule checks the schedule's form (generations rising, known
// and schedulable keys, values of their keys' types) and every
// configuration it makes, each phase applied to those before it.
func (c *Config) validateSchedule() error {
	if len(c.Schedule) > MaxPhases {
		return fmt.Errorf("configs: schedule: %d phases, at most %d", len(c.Schedule), MaxPhases)
	}
	cur := *c
	cur.Schedule = nil
	for i, p := range c.Schedule {
		where := fmt.Sprintf("configs: schedule phase %d (generation %d)", i+1, p.Generation)
		switch {
		case p.Generation < 2 || p.Generation > 1e6:
			return fmt.Errorf("%s: generation must be in 2..1000000 (generation 1 runs by the keys as written)", where)
		case i > 0 && p.Generation <= c.Schedule[i-1].Generation:
			return fmt.Errorf("%s: generations must rise, phase %d begins at %d", where, i, c.Schedule[i-1].Generation)
		case len(p.Set) == 0:
			return fmt.Errorf("%s: set: no keys", where)
		case len(p.Note) > maxNote:
			return fmt.Errorf("%s: note: %d characters, at most %d", where, len(p.Note), maxNote)
		}
		keys := make([]string, 0, len(p.Set))
		for k := range p.Set {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if why := schedulable(k); why != "" {
				return fmt.Errorf("%s: %s cannot be scheduled: %s", where, k, why)
			}
			if err := cur.setKey(k, p.Set[k]); err != nil {
				return fmt.Errorf("%s: %v", where, err)
			}
		}
		if err := cur.Validate(); err != nil {
			return fmt.Errorf("%s: the configuration it makes: %w", where, err)
		}
	}
	return nil
}

// normalize converts each phase's values to their keys' types, so that a
// schedule read from YAML, from a file or an archive, compares, archives
// and digests the same however its numbers were written.
func (c *Config) normalize() {
	d := Default()
	for i, p := range c.Schedule {
		set := make(map[string]any, len(p.Set))
		for k, v := range p.Set {
			set[k] = v
			if f, ok := fieldOf(reflect.ValueOf(&d).Elem(), k); ok {
				if conv, want := convert(v, f.Kind()); want == "" {
					set[k] = conv
				}
			}
		}
		c.Schedule[i].Set = set
	}
}

// readSchedule returns the schedule of the layers: the last layer that has
// a schedule: key defines it (an overlay replaces its base's whole list),
// nil when none has. Each phase's keys are lower-cased; unknown fields of
// a phase are errors naming the file and line.
func readSchedule(layers []layer) ([]Phase, error) {
	var out []Phase
	for _, l := range layers {
		var doc yaml.Node
		if err := yaml.Unmarshal(l.data, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
			continue // checkFileKeys reported it
		}
		root := doc.Content[0]
		for i := 0; i+1 < len(root.Content); i += 2 {
			if strings.ToLower(root.Content[i].Value) != ScheduleKey {
				continue
			}
			phases, err := decodePhases(l.name, root.Content[i+1])
			if err != nil {
				return nil, err
			}
			out = phases
		}
	}
	return out, nil
}

// decodePhases reads a schedule: node.
func decodePhases(name string, n *yaml.Node) ([]Phase, error) {
	if n.Tag == "!!null" {
		return []Phase{}, nil // "schedule:" alone: none (an overlay can clear its base's)
	}
	if n.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("configs: %s:%d: %s must be a list of phases (- generation: N, note: ..., set: {key: value})", name, n.Line, ScheduleKey)
	}
	out := []Phase{}
	for i, pn := range n.Content {
		where := fmt.Sprintf("configs: %s:%d: schedule phase %d", name, pn.Line, i+1)
		if pn.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s: want generation, note and set", where)
		}
		p := Phase{Set: map[string]any{}}
		seen := map[string]bool{}
		for j := 0; j+1 < len(pn.Content); j += 2 {
			kn, vn := pn.Content[j], pn.Content[j+1]
			field := strings.ToLower(kn.Value)
			if seen[field] {
				return nil, fmt.Errorf("%s: %s given twice", where, field)
			}
			seen[field] = true
			switch field {
			case "generation":
				if err := vn.Decode(&p.Generation); err != nil || vn.Kind != yaml.ScalarNode {
					return nil, fmt.Errorf("%s: generation %q: want an integer", where, vn.Value)
				}
			case "note":
				if vn.Kind != yaml.ScalarNode {
					return nil, fmt.Errorf("%s: note: want a line of text", where)
				}
				p.Note = vn.Value
			case "set":
				if vn.Kind != yaml.MappingNode {
					return nil, fmt.Errorf("%s: set: want key: value lines (e.g. train.lr: 0.0003)", where)
				}
				for k := 0; k+1 < len(vn.Content); k += 2 {
					key, val := strings.ToLower(vn.Content[k].Value), vn.Content[k+1]
					if val.Kind != yaml.ScalarNode || val.Tag == "!!null" {
						return nil, fmt.Errorf("configs: %s:%d: schedule phase %d: %s must be a single value", name, vn.Content[k].Line, i+1, key)
					}
					if _, dup := p.Set[key]; dup {
						return nil, fmt.Errorf("configs: %s:%d: schedule phase %d: %s given twice", name, vn.Content[k].Line, i+1, key)
					}
					var v any
					if err := val.Decode(&v); err != nil {
						return nil, fmt.Errorf("configs: %s:%d: schedule phase %d: %s: %v", name, val.Line, i+1, key, err)
					}
					p.Set[key] = v
				}
			default:
				return nil, fmt.Errorf("%s: unknown field %q (a phase has generation, note and set)", where, kn.Value)
			}
		}
		if !seen["generation"] {
			return nil, fmt.Errorf("%s: no generation", where)
		}
		out = append(out, p)
	}
	return out, nil
}

// FuturePhasesOnly reports whether schedules a and b agree on every phase
// that begins at or before gen (their notes aside), so that a run whose next generation is
// gen+1 computes the same whichever it follows; it is false when they are
// equal, since nothing then changes.
func FuturePhasesOnly(a, b []Phase, gen int) bool {
	if reflect.DeepEqual(a, b) {
		return false
	}
	begun := func(s []Phase) []Phase {
		var out []Phase
		for _, p := range s {
			if p.Generation <= gen {
				p.Note = "" // a note changes nothing computed
				out = append(out, p)
			}
		}
		return out
	}
	return reflect.DeepEqual(begun(a), begun(b))
}

// errNoSchedule is returned for an override or environment variable that
// names the schedule, which only a file can hold.
var errNoSchedule = errors.New("the schedule is a list of phases that only a configuration file holds (an overlay file with base: and schedule:)")
