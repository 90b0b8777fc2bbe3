package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestServeFlags(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short")
	if err := os.WriteFile(short, []byte("abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(dir, "open")
	if err := os.WriteFile(open, []byte("0123456789abcdef0123\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve"}, "missing --run"},
		{[]string{"serve", "--run", filepath.Join(dir, "nothing")}, "nothing"},
		{[]string{"serve", "--run", dir, "--http", "8080"}, "--http"},
		{[]string{"serve", "--run", dir, "--http", ":0", "--http-token-file", short}, "at least 16"},
		{[]string{"serve", "--run", dir, "--http-token-file", open}, "readable by others"},
		{[]string{"train", "--run", dir, "--http", "nohost"}, "--http"},
	} {
		code, _, errs := runCmd(t, c.args...)
		if code != 1 || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want 1 and one line with %q", c.args, code, errs, c.want)
		}
	}
}

// startWeb serves a run, prints the address to open, and stops with its
// context; beyond loopback without a token file it makes a token.
func TestStartWeb(t *testing.T) {
	for _, c := range []struct {
		addr      string
		wantToken bool
	}{{"127.0.0.1:0", false}, {":0", true}} {
		fs := bareFlagSet("serve")
		wf := webFlags(fs, c.addr)
		var out bytes.Buffer
		ctx, cancel := context.WithCancel(context.Background())
		wait, err := wf.Start(ctx, &out, "../../runfolder/testdata/run-2026-12-01")
		if err != nil {
			t.Fatal(err)
		}
		line := strings.TrimSpace(out.String())
		i := strings.Index(line, "http://")
		if i < 0 {
			t.Fatalf("no address printed: %q", line)
		}
		u := line[i:]
		if got := strings.Contains(u, "?token="); got != c.wantToken {
			t.Errorf("%s: address %s, token %v, want %v", c.addr, u, got, c.wantToken)
		}
		base, _, _ := strings.Cut(u, "?")
		client := &http.Client{Timeout: 20 * time.Second}
		want := 200
		if c.wantToken {
			want = 401
		}
		resp, err := client.Get(base + "api/models")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s without the token: status %d, want %d", c.addr, resp.StatusCode, want)
		}
		if c.wantToken {
			resp, err := client.Get(strings.Replace(u, "/?", "/api/models?", 1))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("%s with the token: status %d", c.addr, resp.StatusCode)
			}
		}
		cancel()
		if err := wait(); err != nil {
			t.Errorf("%s: %v", c.addr, err)
		}
	}
}

// dama train --http serves the run page while it trains, and stops
// serving when it is done.
func TestTrainServesWeb(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a training process")
	}
	dir := t.TempDir()
	cmd := damaCmd(append([]string{"train", "--run", dir, "--http", "127.0.0.1:0"}, append(slices.Clip(fastRun), "--set", "run.generations=1")...)...)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(pipe)
	var base string
	var out strings.Builder
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if _, u, ok := strings.Cut(sc.Text(), "web view of "+dir+": "); ok && base == "" {
			base = u
			resp, err := http.Get(base + "api/run")
			if err != nil {
				t.Fatalf("the trainer's web view: %v", err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(b), `"summary"`) {
				t.Errorf("GET api/run while training: %d %s", resp.StatusCode, b)
			}
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("dama train --http: %v\n%s%s", err, out.String(), errb.String())
	}
	if base == "" {
		t.Fatalf("no web view address printed:\n%s", out.String())
	}
	if _, err := http.Get(base + "api/run"); err == nil {
		t.Error("the web view still serves after the trainer ended")
	}
}

// TestStartWebTokenFile: a token given in a file is not printed; the
// line names the file instead.
func TestStartWebTokenFile(t *testing.T) {
	const tok = "s3cret-token-0123456789"
	path := filepath.Join(t.TempDir(), "tok")
	if err := os.WriteFile(path, []byte(tok+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fs := bareFlagSet("train")
	wf := webFlags(fs, "")
	if err := fs.Parse([]string{"--http", ":0", "--http-token-file", path}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	wait, err := wf.Start(ctx, &out, "../../runfolder/testdata/run-2026-12-01")
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := wait(); err != nil {
		t.Error(err)
	}
	if line := out.String(); strings.Contains(line, tok) || !strings.Contains(line, path) || !strings.Contains(line, "http://") {
		t.Errorf("printed %q: want the address and the token file, not the token", line)
	}
}
