package buildinfo

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

const rev = "0123456789abcdef0123456789abcdef01234567"

func TestDescribe(t *testing.T) {
	vcs := func(modified string) *debug.BuildInfo {
		return &debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Path: "dama", Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: modified},
		}}
	}
	for _, tc := range []struct {
		name                  string
		version, commit, date string
		bi                    *debug.BuildInfo
		want                  Info
	}{
		{"release stamps", "v1.2.0", rev, "2026-05-06T07:08:09Z", vcs("true"),
			Info{Version: "v1.2.0", Commit: rev, Date: "2026-05-06T07:08:09Z", Go: "go1.99"}},
		{"commit stamped alone", "", rev, "", nil,
			Info{Version: rev[:12], Commit: rev}},
		{"go install of a module version", "", "", "", &debug.BuildInfo{Main: debug.Module{Path: "dama", Version: "v0.3.1"}},
			Info{Version: "v0.3.1"}},
		{"clone, clean", "", "", "", vcs("false"),
			Info{Version: rev[:12], Commit: rev, Date: "2026-01-02T03:04:05Z", Go: "go1.99"}},
		{"clone, modified", "", "", "", vcs("true"),
			Info{Version: rev[:12] + "+modified", Commit: rev, Modified: true, Date: "2026-01-02T03:04:05Z", Go: "go1.99"}},
		{"no VCS stamps", "", "", "", &debug.BuildInfo{Main: debug.Module{Path: "dama", Version: "(devel)"}},
			Info{Version: "dev"}},
		{"no build information", "", "", "", nil, Info{Version: "dev"}},
		{"short revision", "", "", "", &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}},
			Info{Version: "dev", Commit: "abc"}},
	} {
		got := describe(tc.version, tc.commit, tc.date, tc.bi)
		want := tc.want
		if want.Go == "" {
			want.Go = runtime.Version()
		}
		want.Platform = runtime.GOOS + "/" + runtime.GOARCH
		if got != want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, want)
		}
	}
}

// TestLinkStamps builds a program with the -X flags scripts/release passes
// and checks that it reports them: a renamed variable would make -X set
// nothing, silently. It also checks that the script names exactly these
// variables.
func TestLinkStamps(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("..", "..", "scripts", "release"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range regexp.MustCompile(`-X dama/internal/buildinfo\.(\w+)=`).FindAllStringSubmatch(string(script), -1) {
		names = append(names, m[1])
	}
	slices.Sort(names)
	if want := []string{"commit", "date", "version"}; !slices.Equal(slices.Compact(names), want) {
		t.Errorf("scripts/release stamps %v; want %v", names, want)
	}
	if testing.Short() {
		t.Skip("builds a program (seconds)")
	}
	bin := filepath.Join(t.TempDir(), "stamped")
	cmd := exec.Command("go", "build", "-buildvcs=false", "-o", bin, "-ldflags",
		"-X dama/internal/buildinfo.version=v9.8.7 -X dama/internal/buildinfo.commit="+rev+" -X dama/internal/buildinfo.date=2026-01-02T03:04:05Z",
		"./testdata/stamped")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(out)), "v9.8.7|"+rev+"|2026-01-02T03:04:05Z|false"; got != want {
		t.Errorf("stamped binary reports %q, want %q", got, want)
	}
}
