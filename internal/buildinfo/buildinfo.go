// Package buildinfo says which build of dama is running: its version, the
// commit it was built from and that commit's date. A release build
// (scripts/release) stamps the three at link time; other builds fall back
// to what the Go toolchain recorded: the module version of go install
// dama/cmd/dama@VERSION, else the VCS stamps of a build in a clone, else
// "dev".
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// The link-time stamps, set with go build -ldflags "-X
// dama/internal/buildinfo.version=v1.2.0 -X
// dama/internal/buildinfo.commit=<40 hex digits> -X
// dama/internal/buildinfo.date=2026-01-02T03:04:05Z" (the commit's date in
// UTC, RFC 3339). scripts/release sets them; TestLinkStamps checks that
// these names take.
var version, commit, date string

// Info describes a build.
type Info struct {
	// Version is one word: the stamped version, else the module version,
	// else the first 12 hex digits of the commit ("+modified" appended for
	// a tree with uncommitted changes), else "dev".
	Version string
	// Commit is the full commit hash, "" when unknown.
	Commit string
	// Modified says the tree had uncommitted changes (known only from VCS
	// stamps; a release is built from a commit and never is).
	Modified bool
	// Date is the commit's date, RFC 3339 in UTC, "" when unknown.
	Date string
	// Go is the toolchain that built the binary, Platform its GOOS/GOARCH.
	Go, Platform string
}

// Read returns the running binary's build information.
func Read() Info {
	bi, _ := debug.ReadBuildInfo()
	return describe(version, commit, date, bi)
}

// Version returns the running binary's version, as Read().Version.
func Version() string { return Read().Version }

// describe builds the Info of a binary from its link-time stamps and the
// build information the toolchain recorded (nil when it recorded none).
func describe(version, commit, date string, bi *debug.BuildInfo) Info {
	in := Info{Version: version, Commit: commit, Date: date, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi != nil {
		if bi.GoVersion != "" {
			in.Go = bi.GoVersion
		}
		if commit == "" {
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					in.Commit = s.Value
				case "vcs.modified":
					in.Modified = s.Value == "true"
				case "vcs.time":
					if in.Date == "" {
						in.Date = s.Value
					}
				}
			}
		}
	}
	switch {
	case in.Version != "":
	case bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)":
		in.Version = bi.Main.Version
	case len(in.Commit) >= 12:
		in.Version = in.Commit[:12]
		if in.Modified {
			in.Version += "+modified"
		}
	default:
		in.Version = "dev"
	}
	return in
}
