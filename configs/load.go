package configs

import (
	"bytes"
	"embed"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/viper"
	yaml "go.yaml.in/yaml/v3"
)

//go:embed quick.yaml workstation.yaml
var presetFS embed.FS

// Presets are the names of the embedded configurations: "quick" (a few
// generations in minutes on 2 cores with the small network) and
// "workstation" (days of training on a many-core machine).
var Presets = []string{"quick", "workstation"}

// defaultPreset is the configuration Load reads when given no source.
const defaultPreset = "quick"

// envPrefix starts the environment variables that set configuration keys:
// DAMA_SELFPLAY_VISITS sets selfplay.visits. A variable that starts with a
// section's prefix (DAMA_RUN_, DAMA_MODEL_, DAMA_SELFPLAY_, DAMA_TRAIN_,
// DAMA_ARENA_) must name a key of it; other DAMA_ variables are left alone.
const envPrefix = "DAMA_"

// presetYAML returns the text of an embedded preset.
func presetYAML(name string) ([]byte, error) {
	if !slices.Contains(Presets, name) {
		return nil, fmt.Errorf("configs: unknown preset %q (want one of %s)", name, strings.Join(Presets, ", "))
	}
	return presetFS.ReadFile(name + ".yaml")
}

// Load builds the configuration of a run, each layer overriding the one
// before:
//  1. the defaults of every field (Default);
//  2. source: "" for the preset "quick", a preset name ("quick",
//     "workstation"), or the path of a YAML file (containing a path
//     separator or ending in .yaml or .yml); keys absent from it keep
//     their defaults. A file may be an overlay (see BaseKey): its keys
//     override those of the file or preset it names as its base;
//  3. environ, a list of "NAME=value" (os.Environ()): each DAMA_ variable
//     sets its key (DAMA_SELFPLAY_VISITS=64 sets selfplay.visits);
//  4. overrides such as "selfplay.visits=64" (from command-line flags).
//
// An unknown key in the file, the environment or an override, a value of
// the wrong type and a value out of range are errors naming the key; the
// result is validated before it is returned.
func Load(source string, environ, overrides []string) (*Config, error) {
	layers, err := readLayers(source)
	if err != nil {
		return nil, err
	}
	v := viper.New()
	for _, kv := range defaultKeys() {
		v.SetDefault(kv.key, kv.value)
	}
	v.SetConfigType("yaml")
	for i, l := range layers {
		read := v.MergeConfig
		if i == 0 {
			read = v.ReadConfig
		}
		if err := read(bytes.NewReader(l.data)); err != nil {
			return nil, fmt.Errorf("configs: %s: %w", l.name, err)
		}
	}
	name := layers[len(layers)-1].name
	known := knownKeys()
	envKeys := make(map[string]string, len(known))
	for k := range known {
		envKeys[envName(k)] = k
	}
	removedEnvKeys := map[string]string{}
	for _, r := range removedKeys {
		removedEnvKeys[envName(r.key)] = r.key
	}
	fromEnv := map[string]bool{}
	for _, e := range environ {
		n, val, _ := strings.Cut(e, "=")
		if !strings.HasPrefix(n, envPrefix) {
			continue
		}
		k, ok := envKeys[n]
		if !ok && !inSection(n) {
			continue // DAMA_ variables of other parts of dama (tests, tools)
		}
		if removed, err := checkRemoved(removedEnvKeys[n], val, "environment variable "+n); removed || err != nil {
			if err != nil {
				return nil, err
			}
			continue // a removed key at its off value changes nothing
		}
		if !ok {
			return nil, fmt.Errorf("configs: environment variable %s names no configuration key (%s variables set keys, e.g. %s for selfplay.visits)",
				n, envPrefix, envName("selfplay.visits"))
		}
		v.Set(k, strings.TrimSpace(val))
		fromEnv[k] = true
	}
	overridden := map[string]bool{}
	for _, o := range overrides {
		k, val, ok := strings.Cut(o, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if !ok || k == "" {
			return nil, fmt.Errorf("configs: override %q: want key=value, e.g. selfplay.visits=64", o)
		}
		if k == ScheduleKey {
			return nil, fmt.Errorf("configs: override %q: %v", o, errNoSchedule)
		}
		if removed, err := checkRemoved(k, val, fmt.Sprintf("override %q", o)); removed || err != nil {
			if err != nil {
				return nil, err
			}
			continue // a removed key at its off value changes nothing
		}
		if !known[k] {
			return nil, fmt.Errorf("configs: override %q: unknown key %q%s", o, k, suggest(k))
		}
		v.Set(k, strings.TrimSpace(val))
		overridden[k] = true
	}
	// Convert every value to its field's type here, so that a bad one is
	// reported with its key, its text and where it came from.
	for _, kv := range defaultKeys() {
		raw := v.Get(kv.key)
		val, want := convert(raw, reflect.TypeOf(kv.value).Kind())
		if want != "" {
			from := "default"
			switch {
			case overridden[kv.key]:
				from = "override"
			case fromEnv[kv.key]:
				from = "environment " + envName(kv.key)
			default:
				for _, l := range layers {
					if l.keys[kv.key] {
						from = l.name
					}
				}
			}
			return nil, &FieldError{Field: kv.key, Value: fmt.Sprintf("%q", fmt.Sprint(raw)), Want: want, Source: from}
		}
		v.Set(kv.key, val)
	}
	var c Config
	if err := v.Unmarshal(&c); err != nil {
		return nil, fmt.Errorf("configs: %s: %w", name, err)
	}
	if c.Schedule, err = readSchedule(layers); err != nil {
		return nil, err
	}
	if len(c.Schedule) == 0 {
		c.Schedule = nil
	}
	c.normalize()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// BaseKey is the top-level key of an overlay file: the file or preset
// whose settings the overlay starts from, its own keys overriding them.
// The base is a preset name ("quick", "workstation") or the path of a
// YAML file, relative to the overlay's folder; a base may itself be an
// overlay, up to 8 (maxBaseDepth) files deep. For example, an A/B arm that
// differs from its base in one key:
//
//	base: base.yaml
//	train:
//	  value_target_mix: 0.5
const BaseKey = "base"

// maxBaseDepth is the longest chain of bases an overlay may have.
const maxBaseDepth = 8

// layer is one file of an overlay chain: its name for messages, its YAML
// text and the keys it sets.
type layer struct {
	name string
	data []byte
	keys map[string]bool
}

// readLayers reads source and, when it is an overlay, its bases: the
// layers to apply in order, the deepest base first and source last.
func readLayers(source string) ([]layer, error) {
	var layers []layer
	seen := map[string]bool{}
	for {
		data, name, err := readSource(source)
		if err != nil {
			return nil, err
		}
		keys, base, err := checkFileKeys(name, data)
		if err != nil {
			return nil, err
		}
		layers = append(layers, layer{name: name, data: data, keys: keys})
		seen[source] = true
		if base == "" {
			break
		}
		if !slices.Contains(Presets, base) && !filepath.IsAbs(base) {
			if slices.Contains(Presets, source) {
				return nil, fmt.Errorf("configs: %s: base %q: a preset's base must be a preset", name, base)
			}
			base = filepath.Join(filepath.Dir(source), base)
		}
		switch {
		case seen[base]:
			return nil, fmt.Errorf("configs: %s: base %s: the chain of bases comes back to it", name, base)
		case len(layers) > maxBaseDepth:
			return nil, fmt.Errorf("configs: %s: base %s: more than %d files deep", name, base, maxBaseDepth)
		}
		source = base
	}
	slices.Reverse(layers)
	return layers, nil
}

// readSource returns the YAML text of source and a name for messages.
func readSource(source string) ([]byte, string, error) {
	if source == "" {
		source = defaultPreset
	}
	if slices.Contains(Presets, source) {
		b, err := presetYAML(source)
		return b, source + ".yaml (embedded)", err
	}
	ext := strings.ToLower(filepath.Ext(source))
	if !strings.ContainsRune(source, os.PathSeparator) && !strings.ContainsRune(source, '/') && ext != ".yaml" && ext != ".yml" {
		return nil, "", fmt.Errorf("configs: unknown preset %q (want one of %s, or a .yaml file)", source, strings.Join(Presets, ", "))
	}
	b, err := os.ReadFile(source)
	if err != nil {
		return nil, "", fmt.Errorf("configs: %w", err)
	}
	return b, source, nil
}

// checkFileKeys rejects keys of the file that are not configuration keys,
// sections where values belong and values where sections belong, with the
// line. It returns the keys the file sets and its base (BaseKey), "" when
// it has none.
func checkFileKeys(name string, data []byte) (map[string]bool, string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, "", fmt.Errorf("configs: %s: %w", name, err)
	}
	set := map[string]bool{}
	if len(doc.Content) == 0 {
		return set, "", nil // an empty file: all defaults
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, "", fmt.Errorf("configs: %s:%d: want a mapping of sections (run, model, selfplay, train, arena)", name, root.Line)
	}
	base := ""
	known, sections := knownKeys(), knownSections()
	var walk func(prefix string, n *yaml.Node) error
	walk = func(prefix string, n *yaml.Node) error {
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn, val := n.Content[i], n.Content[i+1]
			key := prefix + strings.ToLower(kn.Value)
			switch {
			case key == ScheduleKey && prefix == "":
				// read by readSchedule, which checks its form
			case key == BaseKey:
				if val.Kind != yaml.ScalarNode || val.Tag != "!!str" || val.Value == "" {
					return fmt.Errorf("configs: %s:%d: %s must name a preset or a YAML file", name, kn.Line, BaseKey)
				}
				base = val.Value
			case sections[key] && val.Kind == yaml.MappingNode:
				if err := walk(key+".", val); err != nil {
					return err
				}
			case sections[key]:
				return fmt.Errorf("configs: %s:%d: %s must be a section of keys, not %q", name, kn.Line, key, val.Value)
			case isRemoved(key) && val.Kind == yaml.ScalarNode:
				// At its off value it changes nothing: the key is left
				// out of the keys the file sets (see removedKeys).
				if _, err := checkRemoved(key, val.Value, fmt.Sprintf("%s:%d", name, kn.Line)); err != nil {
					return err
				}
			case !known[key]:
				return fmt.Errorf("configs: %s:%d: unknown key %q%s", name, kn.Line, key, suggest(key))
			case val.Kind != yaml.ScalarNode:
				return fmt.Errorf("configs: %s:%d: %s must be a single value", name, kn.Line, key)
			case val.Tag == "!!null":
				return fmt.Errorf("configs: %s:%d: %s has no value (delete the line to keep the default)", name, kn.Line, key)
			default:
				set[key] = true
			}
		}
		return nil
	}
	if err := walk("", root); err != nil {
		return nil, "", err
	}
	return set, base, nil
}

// suggest names the known keys with the same last part, for a key in the
// wrong section.
func suggest(key string) string {
	last := key[strings.LastIndexByte(key, '.')+1:]
	var hits []string
	for _, kv := range defaultKeys() {
		if kv.key != key && strings.HasSuffix(kv.key, "."+last) {
			hits = append(hits, kv.key)
		}
	}
	if len(hits) == 0 {
		return ""
	}
	return " (did you mean " + strings.Join(hits, " or ") + "?)"
}

// envName returns the environment variable for key.
func envName(key string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

type keyValue struct {
	key   string
	value any
}

// defaultKeys lists every configuration key with its default, in the order
// of the Config struct.
func defaultKeys() []keyValue {
	d := Default()
	return keyValues(&d)
}

// keyValues lists every configuration key with its value in c, in the
// order of the Config struct.
func keyValues(c *Config) []keyValue {
	var out []keyValue
	var walk func(prefix string, v reflect.Value)
	walk = func(prefix string, v reflect.Value) {
		t := v.Type()
		for i := range t.NumField() {
			k := prefix + t.Field(i).Tag.Get("mapstructure")
			if k == "-" {
				continue // the schedule: not a key
			}
			if f := v.Field(i); f.Kind() == reflect.Struct {
				walk(k+".", f)
			} else {
				out = append(out, keyValue{k, f.Interface()})
			}
		}
	}
	walk("", reflect.ValueOf(*c))
	return out
}

func knownKeys() map[string]bool {
	m := map[string]bool{}
	for _, kv := range defaultKeys() {
		m[kv.key] = true
	}
	return m
}

func knownSections() map[string]bool {
	m := map[string]bool{}
	for _, kv := range defaultKeys() {
		if i := strings.LastIndexByte(kv.key, '.'); i > 0 {
			m[kv.key[:i]] = true
		}
	}
	return m
}

// Keys returns every configuration key, dotted, in the order of Config.
func Keys() []string {
	var out []string
	for _, kv := range defaultKeys() {
		out = append(out, kv.key)
	}
	return out
}

// convert returns raw (from YAML, the environment or an override) as a
// value of kind, or a description of what was wanted.
func convert(raw any, kind reflect.Kind) (any, string) {
	switch kind {
	case reflect.Int, reflect.Int64:
		var n int64
		switch x := raw.(type) {
		case int:
			n = int64(x)
		case int64:
			n = x
		case uint64:
			if x > math.MaxInt64 {
				return nil, "an integer"
			}
			n = int64(x)
		case float64:
			if x != math.Trunc(x) || math.Abs(x) > 1<<62 {
				return nil, "an integer"
			}
			n = int64(x)
		case string:
			var err error
			if n, err = strconv.ParseInt(strings.TrimSpace(x), 10, 64); err != nil {
				return nil, "an integer"
			}
		default:
			return nil, "an integer"
		}
		if kind == reflect.Int {
			return int(n), ""
		}
		return n, ""
	case reflect.Float64:
		switch x := raw.(type) {
		case int:
			return float64(x), ""
		case int64:
			return float64(x), ""
		case uint64:
			return float64(x), ""
		case float64:
			return x, ""
		case string:
			f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil {
				return nil, "a number"
			}
			return f, ""
		}
		return nil, "a number"
	case reflect.Bool:
		switch x := raw.(type) {
		case bool:
			return x, ""
		case string:
			b, err := strconv.ParseBool(strings.TrimSpace(x))
			if err != nil {
				return nil, "true or false"
			}
			return b, ""
		}
		return nil, "true or false"
	case reflect.String:
		switch x := raw.(type) {
		case string:
			return x, ""
		case int, int64, uint64, float64:
			return fmt.Sprint(x), ""
		}
		return nil, "a string"
	}
	return nil, "a value of kind " + kind.String()
}

// inSection reports whether an environment variable name starts with the
// prefix of a configuration section (DAMA_SELFPLAY_, ...): such a variable
// must name a key, so that a misspelt one is an error rather than ignored.
func inSection(name string) bool {
	for _, sec := range []string{"RUN", "MODEL", "SELFPLAY", "TRAIN", "ARENA", "VERSION"} {
		if strings.HasPrefix(name, envPrefix+sec) {
			return true
		}
	}
	return false
}
