package runfolder

import (
	"os"
	"path/filepath"
	"testing"
)

// The best file must name a checkpoint inside accepted/: not rejected/ or
// another folder, not a path through "..", not a symbolic link out of the
// run folder, not a folder (issue 20, point 4: best could point at
// rejected/ or through a symlink out of the run folder).
func TestBestChecks(t *testing.T) {
	r := copySample(t)
	outside := t.TempDir()
	for _, f := range []string{filepath.Join(outside, "0001.ckpt"), r.Path(RejectedDir, "0001.ckpt"), r.Path(CandidatesDir, "0001.ckpt"), r.Path(AcceptedDir, "notes.txt")} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(outside, "0001.ckpt"), r.Path(AcceptedDir, "0003.ckpt")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.Mkdir(r.Path(AcceptedDir, "0004.ckpt"), 0o755); err != nil {
		t.Fatal(err)
	}
	set := func(name string) {
		t.Helper()
		if err := os.WriteFile(r.Path(BestFile), []byte(name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ best, want string }{
		{"rejected/0001.ckpt", "want a checkpoint of accepted/"},
		{"candidates/0001.ckpt", "want a checkpoint of accepted/"},
		{"accepted/../rejected/0001.ckpt", "bad best model name"},
		{"../run/accepted/0000.ckpt", "bad best model name"},
		{filepath.Join(outside, "0001.ckpt"), "bad best model name"},
		{"accepted/notes.txt", "bad best model name"},
		{"accepted/0003.ckpt", "symbolic link"},
		{"accepted/0004.ckpt", "not a regular file"},
	} {
		set(tc.best)
		_, err := r.Best()
		wantErr(t, "best "+tc.best, err, r.Path(BestFile), tc.want)
		_, err = r.BestPath()
		wantErr(t, "best path "+tc.best, err, r.Path(BestFile), tc.want)
	}
	// accepted/ itself a link out of the run folder.
	set("accepted/0000.ckpt")
	if best, err := r.Best(); err != nil || best != "accepted/0000.ckpt" {
		t.Fatalf("the sample's best: %q, %v", best, err)
	}
	if err := os.Rename(r.Path(AcceptedDir), filepath.Join(outside, "acc")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "acc"), r.Path(AcceptedDir)); err != nil {
		t.Fatal(err)
	}
	_, err := r.Best()
	wantErr(t, "accepted/ a symbolic link", err, r.Path(BestFile), "symbolic link")
}
