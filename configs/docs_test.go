package configs

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// The allowed range of every key is defined once, by the validator; the
// documentation states it three times for people: the comment of the
// key's field in config.go and the comment above the key in each preset
// (and in any overlay under ab/). These tests hold every statement of a
// range and a default to the validator and to Default.

// checkedRanges returns the allowed range of each key as the validator
// states it (its "want"), for the default configuration.
func checkedRanges(t *testing.T) map[string]string {
	t.Helper()
	c := Default()
	v := validator{want: map[string]string{}}
	c.validate(&v)
	if len(v.errs) != 0 {
		t.Fatalf("the defaults do not validate: %v", v.errs)
	}
	return v.want
}

// docExceptions are keys whose range is said in words, and the words.
var docExceptions = map[string]string{
	"version":  "must be 1",
	"run.name": "at most 64",
}

// numRange is a range of numbers, each end open or closed.
type numRange struct {
	lo, hi     float64
	loIn, hiIn bool
}

func (r numRange) String() string {
	l, h := "(", ")"
	if r.loIn {
		l = "["
	}
	if r.hiIn {
		h = "]"
	}
	return fmt.Sprintf("%s%v,%v%s", l, r.lo, r.hi, h)
}

var (
	endRE        = `-?[A-Za-z_0-9.^]+(?:-1)?`
	intervalRE   = regexp.MustCompile(`([\[(])\s*(` + endRE + `)\s*,\s*(` + endRE + `)\s*([\])])`)
	dotsRE       = regexp.MustCompile(`(` + endRE + `)\.\.(` + endRE + `)`)
	docDefaultRE = regexp.MustCompile(`Default ("[^"]*"|[^ ]+?)\.?\s*$`)
)

// symbols are the names a documented range may use for another key's
// value, with their values in the default configuration.
func symbols() map[string]float64 {
	d := Default()
	return map[string]float64{
		"visits": float64(d.SelfPlay.Visits), "lr": d.Train.LR,
		"windowmin": float64(d.Train.WindowMin), "window_min": float64(d.Train.WindowMin),
		"elo0": d.Arena.Elo0,
	}
}

// end evaluates an end of a range: a number, 10^k, or a symbol, minus 1
// when it ends in "-1".
func end(s string) (float64, bool) {
	minus := 0.0
	if strings.HasSuffix(s, "-1") && !strings.HasPrefix(s, "-") || strings.Count(s, "-") == 2 {
		s, minus = strings.TrimSuffix(s, "-1"), 1
	}
	if b, e, ok := strings.Cut(s, "^"); ok {
		base, err1 := strconv.ParseFloat(b, 64)
		exp, err2 := strconv.ParseFloat(e, 64)
		if err1 != nil || err2 != nil {
			return 0, false
		}
		return math.Pow(base, exp) - minus, true
	}
	if x, err := strconv.ParseFloat(s, 64); err == nil {
		return x - minus, true
	}
	if x, ok := symbols()[strings.ToLower(s)]; ok {
		return x - minus, true
	}
	return 0, false
}

// ranges returns the numeric ranges stated in text.
func ranges(text string) []numRange {
	var out []numRange
	for _, m := range intervalRE.FindAllStringSubmatch(text, -1) {
		lo, ok1 := end(m[2])
		hi, ok2 := end(m[3])
		if ok1 && ok2 {
			out = append(out, numRange{lo, hi, m[1] == "[", m[4] == "]"})
		}
	}
	for _, m := range dotsRE.FindAllStringSubmatch(text, -1) {
		lo, ok1 := end(m[1])
		hi, ok2 := end(m[2])
		if ok1 && ok2 {
			out = append(out, numRange{lo, hi, true, true})
		}
	}
	return out
}

// docProblems checks one statement of key's documentation, doc, against
// the validator's range want and, when def is not nil, the default def.
func docProblems(key, doc, want string, def any) []string {
	var out []string
	doc = strings.Join(strings.Fields(doc), " ")
	if doc == "" {
		return []string{key + " is not documented"}
	}
	if def != nil {
		m := docDefaultRE.FindStringSubmatch(doc)
		if m == nil {
			out = append(out, fmt.Sprintf("%s: no \"Default X.\" at the end of %q", key, doc))
		} else if got := strings.Trim(m[1], `"`); !sameValue(got, def) {
			out = append(out, fmt.Sprintf("%s: documented default %s, Default() has %v", key, m[1], def))
		}
	}
	if words, ok := docExceptions[key]; ok {
		if !strings.Contains(doc, words) {
			out = append(out, fmt.Sprintf("%s: want %q in %q", key, words, doc))
		}
		return out
	}
	if strings.HasPrefix(want, "one of ") {
		for _, v := range strings.Split(strings.TrimPrefix(want, "one of "), ", ") {
			if !regexp.MustCompile(`\b` + regexp.QuoteMeta(v) + `\b`).MatchString(doc) {
				out = append(out, fmt.Sprintf("%s: the allowed value %s is not documented in %q", key, v, doc))
			}
		}
		return out
	}
	if want == "" || strings.HasPrefix(want, "false unless") {
		return out // no range to state (a flag, a free string)
	}
	w := ranges(want)
	if len(w) != 1 {
		return append(out, fmt.Sprintf("%s: the validator's range %q does not parse", key, want))
	}
	got := ranges(doc)
	switch {
	case len(got) != 1:
		out = append(out, fmt.Sprintf("%s: want one range, %v, in %q; found %v", key, w[0], doc, got))
	case got[0] != w[0]:
		out = append(out, fmt.Sprintf("%s: documented range %v, the validator checks %v (%s)", key, got[0], w[0], want))
	}
	return out
}

// sameValue reports whether the documented text s is the value v.
func sameValue(s string, v any) bool {
	switch x := v.(type) {
	case string:
		return s == x
	case bool:
		return s == strconv.FormatBool(x)
	}
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && f == reflect.ValueOf(v).Convert(reflect.TypeOf(0.0)).Float()
}

// fieldDocs returns the doc comment of every field of the configuration's
// structs in config.go, by dotted key.
func fieldDocs(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "config.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	structs := map[string]*ast.StructType{}
	ast.Inspect(f, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok {
			if st, ok := ts.Type.(*ast.StructType); ok {
				structs[ts.Name.Name] = st
			}
		}
		return true
	})
	tag := func(fl *ast.Field) string {
		if fl.Tag == nil {
			return ""
		}
		s, _ := strconv.Unquote(fl.Tag.Value)
		return reflect.StructTag(s).Get("mapstructure")
	}
	docs := map[string]string{}
	for _, fl := range structs["Config"].Fields.List {
		sec := tag(fl)
		if sec == "-" {
			continue // the schedule: not a key (schedule_test.go)
		}
		id, ok := fl.Type.(*ast.Ident)
		if !ok || structs[id.Name] == nil {
			docs[sec] = fl.Doc.Text()
			continue
		}
		for _, sf := range structs[id.Name].Fields.List {
			docs[sec+"."+tag(sf)] = sf.Doc.Text()
		}
	}
	return docs
}

// fileDocs returns the keys of a YAML file (the presets, the overlays),
// in order, and the comment just above each.
func fileDocs(t *testing.T, path string) ([]string, map[string]string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var keys []string
	docs := map[string]string{}
	var walk func(prefix string, n *yaml.Node)
	walk = func(prefix string, n *yaml.Node) {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if v.Kind == yaml.MappingNode {
				walk(prefix+k.Value+".", v)
				continue
			}
			if prefix == "" && k.Value == ScheduleKey {
				continue // a list of phases, not a key (schedule_test.go)
			}
			lines := strings.Split(strings.TrimSpace(k.HeadComment), "\n")
			// The key's own comment is the last paragraph above it.
			var own []string
			for j := len(lines) - 1; j >= 0 && strings.HasPrefix(strings.TrimSpace(lines[j]), "#"); j-- {
				own = append([]string{strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[j]), "#"))}, own...)
			}
			keys = append(keys, prefix+k.Value)
			docs[prefix+k.Value] = strings.Join(own, " ")
		}
	}
	walk("", doc.Content[0])
	return keys, docs
}

// TestFieldDocsAgree holds the comment of each key's field in config.go to
// the validator and the defaults.
func TestFieldDocsAgree(t *testing.T) {
	want, docs := checkedRanges(t), fieldDocs(t)
	for _, kv := range defaultKeys() {
		for _, p := range docProblems(kv.key, docs[kv.key], want[kv.key], kv.value) {
			t.Errorf("config.go: %s", p)
		}
	}
	if len(docs) != len(defaultKeys()) {
		t.Errorf("config.go documents %d fields, there are %d keys", len(docs), len(defaultKeys()))
	}
}

// TestPresetDocsAgree holds the range in the comment above each key of the
// presets, and of the keys the A/B overlays set, to the validator (the
// defaults and the list of keys of the presets: TestPresetsDocumentEveryKey).
func TestPresetDocsAgree(t *testing.T) {
	want := checkedRanges(t)
	overlays, err := filepath.Glob(filepath.Join("ab", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files := append([]string{"quick.yaml", "workstation.yaml"}, overlays...)
	if len(Presets) != 2 {
		t.Fatalf("presets %v: update the list of files", Presets)
	}
	for _, f := range files {
		_, docs := fileDocs(t, f)
		for k, doc := range docs {
			if k == BaseKey {
				continue
			}
			var def any // the presets' defaults: TestPresetsDocumentEveryKey
			if strings.HasPrefix(f, "ab") {
				def = defaultValue(k)
			}
			for _, p := range docProblems(k, doc, want[k], def) {
				t.Errorf("%s: %s", f, p)
			}
		}
	}
}

// TestDocCheckFails shows that the checks catch a wrong range, a wrong
// default and a missing comment.
func TestDocCheckFails(t *testing.T) {
	want := checkedRanges(t)
	for _, tc := range []struct{ key, doc string }{
		{"model.blocks", "Residual blocks, 0..64. Default 0."},
		{"selfplay.cpuct", "PUCT constant, [0,100]. Default 1.5."},
		{"selfplay.visits", "Visits, 1..10^6. Default 100."},
		{"selfplay.visits", "Visits. Default 200."},
		{"selfplay.cheap_visits", "Cheap visits, 0 = off, else 1..visits. Default 0."},
		{"train.lr_min", "End of the cosine schedule, [0,1]. Default 0.00001."},
		{"arena.gating", "sprt or threshold. Default \"sprt\"."},
		{"selfplay.pass_forced", "Forced moves passed."},
		{"selfplay.pass_forced", ""},
	} {
		if len(docProblems(tc.key, tc.doc, want[tc.key], defaultValue(tc.key))) == 0 {
			t.Errorf("%s: %q passed the check", tc.key, tc.doc)
		}
	}
	if p := docProblems("selfplay.visits", "Visits, 1..10^6. Default 200.", want["selfplay.visits"], 200); len(p) != 0 {
		t.Errorf("a right statement failed: %v", p)
	}
}

func defaultValue(key string) any {
	for _, kv := range defaultKeys() {
		if kv.key == key {
			return kv.value
		}
	}
	return nil
}
