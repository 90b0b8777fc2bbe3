package broker

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// parseFlags declares the broker's flags of a trainer or a worker and
// parses args.
func parseFlags(t *testing.T, trainer bool, args ...string) *Flags {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f := AddFlags(fs, trainer)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f
}

// workerCredential adds worker w1 to a roster and writes its credential
// file, returned with the credential.
func workerCredential(t *testing.T) (string, *Credential) {
	t.Helper()
	dir := t.TempDir()
	c, err := AddWorker(dir, "w1")
	if err != nil {
		t.Fatal(err)
	}
	cred := filepath.Join(dir, "w1.cred")
	if err := WriteCredential(cred, c); err != nil {
		t.Fatal(err)
	}
	return cred, c
}

func TestFlagsTrainer(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("s3cret-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string // the error, "" for none
		from string // the Auth's From
	}{
		{[]string{"--serve", ":4222"}, "", ""},
		{[]string{"--serve", ":4222", "--broker", "nats://h:4222"}, "--serve and --broker do not go together", ""},
		{[]string{"--serve", ":4222", "--token-file", tokenFile}, "--token, --token-file and --creds go with --broker", ""},
		{[]string{"--broker", "nats://h:4222", "--token", "x"}, "", "--token"},
		{[]string{"--broker", "nats://h:4222", "--token-file", tokenFile}, "", "--token-file " + tokenFile},
		{[]string{"--broker", "nats://h:4222", "--token", "x", "--token-file", tokenFile}, "--token and --token-file do not go together", ""},
		{[]string{"--broker", "nats://h:4222", "--creds", "a.creds"}, "", "--creds a.creds"},
	} {
		f := parseFlags(t, true, c.args...)
		if !f.Used() {
			t.Errorf("%v: Used() = false", c.args)
		}
		to, err := f.Trainer()
		switch {
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: got error %v, want %q", c.args, err, c.want)
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.args, err)
		case c.want == "" && (to.Serve != f.Serve || to.URL != f.URL || to.Auth.From != c.from):
			t.Errorf("%v: got serve %q url %q from %q, want %q %q %q", c.args, to.Serve, to.URL, to.Auth.From, f.Serve, f.URL, c.from)
		}
	}
	if parseFlags(t, true).Used() {
		t.Error("no flags: Used() = true")
	}
	if parseFlags(t, true, "--broker", "nats://h:4222", "--token-file", tokenFile).Token != "" {
		t.Error("the token file's token is in the flags, want it read only by Auth")
	}
}

func TestFlagsWorkerAuth(t *testing.T) {
	cred, c := workerCredential(t)
	got, a, err := parseFlags(t, false, "--broker", "nats://h:4222", "--credential", cred).WorkerAuth()
	if err != nil {
		t.Fatal(err)
	}
	if got.Worker != "w1" || a.User != c.User || a.Password != c.Password || a.From != "--credential "+cred {
		t.Errorf("got worker %q, user %q, from %q; want w1, %q, --credential %s", got.Worker, a.User, a.From, c.User, cred)
	}
	_, a, err = parseFlags(t, false, "--broker", "nats://h:4222", "--credential", cred, "--token", "x").WorkerAuth()
	if err != nil || a.Token != "x" || a.User != "" {
		t.Errorf("with --token: got token %q user %q (%v), want the token alone", a.Token, a.User, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--broker", "nats://u:p@h:4222", "--credential", cred}, "a user or token in the URL bypasses"},
		{[]string{"--broker", "nats://h:4222"}, "--broker needs --credential FILE"},
		{[]string{"--broker", "nats://h:4222", "--credential", filepath.Join(t.TempDir(), "none.cred")}, "credential file"},
	} {
		if _, _, err := parseFlags(t, false, c.args...).WorkerAuth(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.args, err, c.want)
		}
	}
	if _, _, err := parseFlags(t, false, "--broker", "nats://u:secret@h:4222").WorkerAuth(); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("a URL with a password: got %v, want a refusal that does not show it", err)
	}
}

// Worker takes the credential's name where none is given, refuses
// another, and carries the URL, the client credential and the trainer's
// key.
func TestFlagsWorker(t *testing.T) {
	cred, c := workerCredential(t)
	f := parseFlags(t, false, "--broker", "nats://h:4222", "--credential", cred)
	key, err := c.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	wo, err := f.Worker("")
	if err != nil || wo.Name != "w1" || wo.URL != "nats://h:4222" || wo.Auth.User != c.User || !key.Equal(wo.TrainerKey) {
		t.Errorf("got %+v, %v; want worker w1 at the URL with the credential's user and key", wo, err)
	}
	if _, err := f.Worker("w2"); err == nil || err.Error() != "--worker w2: the credential "+cred+" is worker w1's" {
		t.Errorf("another name: got %v", err)
	}
}
