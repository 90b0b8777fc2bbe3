package configs

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// testRemoved adds, for the length of a test, a removed key that never
// was a key (selfplay.test_switch, off at false, after selfplay.backend),
// so that the mechanism is tested whatever keys have been removed.
func testRemoved(t *testing.T) removedKey {
	t.Helper()
	r := removedKey{"selfplay.test_switch", "selfplay.backend", false,
		removal{"the test switch lost its A/B", "docs/experiments.md#how-an-ab-comparison-runs", "0edde8a"}}
	old := removedKeys
	removedKeys = append(slices.Clip(old), r)
	t.Cleanup(func() { removedKeys = old })
	return r
}

// TestRemovedKeyDigestForm: Digest hashes YAML() with a removed key's line
// back at its off value, after the key that preceded it.
func TestRemovedKeyDigestForm(t *testing.T) {
	c := Default()
	plain, err := c.digestForm()
	if err != nil {
		t.Fatal(err)
	}
	testRemoved(t)
	form, err := c.digestForm()
	if err != nil {
		t.Fatal(err)
	}
	y, err := c.YAML()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(string(plain), "    backend: auto\n", "    backend: auto\n    test_switch: false\n", 1)
	if string(form) != want || strings.Contains(string(y), "test_switch") {
		t.Errorf("digest form:\n%s\nwant:\n%s", form, want)
	}
	if sum := sha256.Sum256(form); c.Digest() != hex.EncodeToString(sum[:]) {
		t.Errorf("Digest %s is not the SHA-256 of the digest form", c.Digest())
	}
}

// offText returns a removed key's off value as config.yaml wrote it.
func offText(t *testing.T, r removedKey) string {
	t.Helper()
	b, err := yaml.Marshal(r.off)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// onText returns a value of a removed key's type other than its off value.
func onText(r removedKey) string {
	switch x := r.off.(type) {
	case bool:
		return fmt.Sprint(!x)
	case string:
		return "gumbel"
	case int:
		return fmt.Sprint(x + 1)
	case float64:
		return fmt.Sprint(x + 2)
	}
	panic(fmt.Sprintf("removed key %s of type %T", r.key, r.off))
}

// sectionYAML returns a file that sets key (dotted) to value.
func sectionYAML(key, value string) string {
	section, k, _ := strings.Cut(key, ".")
	return fmt.Sprintf("%s:\n  %s: %s\n", section, k, value)
}

// TestRemovedKeysAtOffChangeNothing: a removed key set to the value at
// which it did nothing (as every archived config.yaml sets it) loads from a
// file, the environment and an override, and the configuration is the
// one without it, digest included.
func TestRemovedKeysAtOffChangeNothing(t *testing.T) {
	testRemoved(t)
	want, err := Load(writeFile(t, ""), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range removedKeys {
		off := offText(t, r)
		texts := []string{off}
		if _, ok := r.off.(float64); ok && !strings.Contains(off, ".") {
			texts = append(texts, off+".0") // quick.yaml wrote gumbel_c_scale: 1.0
		} else if ok {
			texts = append(texts, off+"0")
		}
		for _, v := range texts {
			for _, src := range []struct {
				name          string
				file          string
				env, override []string
			}{
				{"file", sectionYAML(r.key, v), nil, nil},
				{"environment", "", []string{envName(r.key) + "=" + v}, nil},
				{"override", "", nil, []string{r.key + "=" + v}},
			} {
				c, err := Load(writeFile(t, src.file), src.env, src.override)
				if err != nil {
					t.Errorf("%s %s = %s: %v", src.name, r.key, v, err)
					continue
				}
				if d := Diff(want, c); len(d) != 0 || c.Digest() != want.Digest() {
					t.Errorf("%s %s = %s: differs from the defaults in %v, digest %s, want %s", src.name, r.key, v, d, c.Digest(), want.Digest())
				}
			}
		}
	}
}

// TestRemovedKeysRefused: a removed key set to any other value is refused
// with one line that names the key and the value, says it was removed,
// where it was set and where its record is.
func TestRemovedKeysRefused(t *testing.T) {
	testRemoved(t)
	for _, r := range removedKeys {
		on := onText(r)
		path := writeFile(t, "# a run's configuration\n"+sectionYAML(r.key, on))
		for _, src := range []struct {
			name, file    string
			env, override []string
			where         string
		}{
			{"file", path, nil, nil, path + ":3"},
			{"environment", "", []string{envName(r.key) + "=" + on}, nil, "environment variable " + envName(r.key)},
			{"override", "", nil, []string{r.key + "=" + on}, fmt.Sprintf("override %q", r.key+"="+on)},
		} {
			_, err := Load(src.file, src.env, src.override)
			var re *RemovedError
			if !errors.As(err, &re) || re.Key != r.key || re.Value != on {
				t.Errorf("%s %s = %s: %v, want a *RemovedError", src.name, r.key, on, err)
				continue
			}
			msg := err.Error()
			for _, w := range []string{"configs: " + src.where + ": " + r.key + ": " + on + " was removed (", r.why.what, r.why.record, "last in commit " + r.why.last} {
				if !strings.Contains(msg, w) {
					t.Errorf("%s %s = %s: %q lacks %q", src.name, r.key, on, msg, w)
				}
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("%s %s = %s: more than one line: %q", src.name, r.key, on, msg)
			}
		}
		if err := CheckRemoved(r.key, on); err == nil || CheckRemoved(r.key, offText(t, r)) != nil {
			t.Errorf("CheckRemoved(%s): %v on, %v off", r.key, err, CheckRemoved(r.key, offText(t, r)))
		}
		if !RemovedAtOff(r.key, offText(t, r)) || RemovedAtOff(r.key, on) {
			t.Errorf("RemovedAtOff(%s) does not tell %s from %s", r.key, offText(t, r), on)
		}
	}
	if RemovedAtOff("selfplay.visits", "200") || CheckRemoved("selfplay.visits", "7") != nil {
		t.Error("selfplay.visits taken for a removed key")
	}
}

// TestRemovedKeysRows: a removed key is no key any more, its place in the
// digest's form is known, and its record names a section of
// docs/experiments.md that exists.
func TestRemovedKeysRows(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "docs", "experiments.md"))
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#+ (.+)$`).FindAllStringSubmatch(string(page), -1) {
		slug := strings.ReplaceAll(strings.ToLower(m[1]), " ", "-")
		anchors[regexp.MustCompile(`[^a-z0-9_-]`).ReplaceAllString(slug, "")] = true
	}
	d := Default()
	if _, err := d.digestForm(); err != nil {
		t.Error(err)
	}
	for _, r := range removedKeys {
		if slices.Contains(Keys(), r.key) || slices.Contains(LaterKeys, r.key) {
			t.Errorf("%s is removed and still a key", r.key)
		}
		page, anchor, _ := strings.Cut(r.why.record, "#")
		if page != "docs/experiments.md" || !anchors[anchor] {
			t.Errorf("%s: record %s: no such section in docs/experiments.md", r.key, r.why.record)
		}
		if !regexp.MustCompile(`^[0-9a-f]{7,40}$`).MatchString(r.why.last) {
			t.Errorf("%s: last commit %q", r.key, r.why.last)
		}
	}
}
