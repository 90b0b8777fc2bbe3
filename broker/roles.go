package broker

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nats-io/nats-server/v2/server"

	"dama/internal/atomicfile"
)

// Files of the broker's roles in a run's broker folder (RUN/broker). All
// are written mode 0600 and never leave the trainer's machine; a worker
// gets a Credential file of its own.
const (
	RosterFile  = "users.json"  // Roster: the trainer's and each worker's password
	SignerFile  = "trainer.key" // the trainer's ed25519 seed, hex
	TrainerUser = "dama-trainer"
)

// Roster is the users of a served broker: the trainer, which may do
// anything, and the workers, each limited to its own chunk subject and
// counter and to reading the run's models and settings (WorkerPermissions).
type Roster struct {
	Version int               `json:"version"`
	Trainer string            `json:"trainer_password"`
	Workers map[string]string `json:"workers"` // worker name -> password
}

// Credential is what a worker needs to join a run: its name, its NATS user
// and password on a served broker, and the trainer's public key that every
// model and configuration is checked against. dama broker add-worker writes
// it.
type Credential struct {
	Version    int    `json:"dama_worker_credential"`
	Worker     string `json:"worker"`
	User       string `json:"user"`
	Password   string `json:"password"`
	TrainerKey string `json:"trainer_key"` // "ed25519:" and hex
}

// PublicKey returns the trainer's key the credential carries.
func (c *Credential) PublicKey() (ed25519.PublicKey, error) {
	h, ok := strings.CutPrefix(c.TrainerKey, "ed25519:")
	b, err := hex.DecodeString(h)
	if !ok || err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("trainer_key %q: want ed25519: and %d hex bytes", c.TrainerKey, ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), nil
}

// randomSecret returns 24 random bytes in hex.
func randomSecret() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// writePrivate writes data to path under a temporary name made private
// before the data goes in, then renames it.
func writePrivate(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		f, ok := w.(*os.File)
		if !ok {
			return errors.New("broker: private file: not a file")
		}
		if err := f.Chmod(0o600); err != nil {
			return err
		}
		_, err := f.Write(data)
		return err
	})
}

// readPrivate reads a file that must not be readable by others.
func readPrivate(path, what string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("broker: %s: %w", what, err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("broker: %s %s is readable by others (mode %v); chmod 600 it", what, path, st.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("broker: %s: %w", what, err)
	}
	return b, nil
}

// LoadRoster reads the roster in the broker folder dir.
func LoadRoster(dir string) (*Roster, error) {
	path := filepath.Join(dir, RosterFile)
	b, err := readPrivate(path, "roster")
	if err != nil {
		return nil, err
	}
	var r Roster
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("broker: roster %s: %v", path, err)
	}
	if r.Version != 1 || r.Trainer == "" {
		return nil, fmt.Errorf("broker: roster %s: version %d, trainer password set %v; want version 1 and a password", path, r.Version, r.Trainer != "")
	}
	for name, pw := range r.Workers {
		if err := checkWorkerName(name); err != nil || pw == "" {
			return nil, fmt.Errorf("broker: roster %s: worker %q: a bad name or no password", path, name)
		}
	}
	if r.Workers == nil {
		r.Workers = map[string]string{}
	}
	return &r, nil
}

// EnsureRoster returns the roster in dir, writing one with a new trainer
// password and no workers if there is none.
func EnsureRoster(dir string) (*Roster, error) {
	if _, err := os.Stat(filepath.Join(dir, RosterFile)); err == nil {
		return LoadRoster(dir)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	pw, err := randomSecret()
	if err != nil {
		return nil, err
	}
	r := &Roster{Version: 1, Trainer: pw, Workers: map[string]string{}}
	return r, r.save(dir)
}

func (r *Roster) save(dir string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return writePrivate(filepath.Join(dir, RosterFile), append(b, '\n'))
}

// TrainerAuth is the trainer's credential on a server serving r.
func (r *Roster) TrainerAuth() Auth { return Auth{User: TrainerUser, Password: r.Trainer} }

// EnsureSigner returns the trainer's signing key in dir, generating it (and
// writing it mode 0600) the first time.
func EnsureSigner(dir string) (ed25519.PrivateKey, error) {
	path := filepath.Join(dir, SignerFile)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		seed := make([]byte, ed25519.SeedSize)
		if _, err := rand.Read(seed); err != nil {
			return nil, err
		}
		if err := writePrivate(path, []byte(hex.EncodeToString(seed)+"\n")); err != nil {
			return nil, err
		}
	}
	b, err := readPrivate(path, "signing key")
	if err != nil {
		return nil, err
	}
	seed, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("broker: signing key %s: want %d hex bytes", path, ed25519.SeedSize)
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// AddWorker gives worker name a new password in the roster in dir (making
// the roster and the signing key if needed) and returns its credential. A
// running served broker takes it within a few seconds. Adding a worker
// again replaces its password: its old credential stops working.
func AddWorker(dir, name string) (*Credential, error) {
	if err := checkWorkerName(name); err != nil {
		return nil, err
	}
	key, err := EnsureSigner(dir)
	if err != nil {
		return nil, err
	}
	r, err := EnsureRoster(dir)
	if err != nil {
		return nil, err
	}
	pw, err := randomSecret()
	if err != nil {
		return nil, err
	}
	r.Workers[name] = pw
	if err := r.save(dir); err != nil {
		return nil, err
	}
	return &Credential{Version: 1, Worker: name, User: name, Password: pw,
		TrainerKey: "ed25519:" + hex.EncodeToString(key.Public().(ed25519.PublicKey))}, nil
}

// RevokeWorker removes worker name from the roster in dir. A running
// served broker disconnects it within a few seconds and refuses it from
// then on, restarts included.
func RevokeWorker(dir, name string) error {
	r, err := LoadRoster(dir)
	if err != nil {
		return err
	}
	if _, ok := r.Workers[name]; !ok {
		return fmt.Errorf("broker: no worker %q in %s", name, filepath.Join(dir, RosterFile))
	}
	delete(r.Workers, name)
	return r.save(dir)
}

// WriteCredential writes c to path, mode 0600.
func WriteCredential(path string, c *Credential) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return writePrivate(path, append(b, '\n'))
}

// ReadCredential reads a worker's credential file: private to its owner,
// version 1, with a worker name and the trainer's key.
func ReadCredential(path string) (*Credential, error) {
	b, err := readPrivate(path, "credential file")
	if err != nil {
		return nil, err
	}
	var c Credential
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&c); err != nil {
		return nil, fmt.Errorf("broker: credential file %s: %v", path, err)
	}
	if c.Version != 1 {
		return nil, fmt.Errorf("broker: credential file %s: dama_worker_credential %d, want 1 (written by dama broker add-worker)", path, c.Version)
	}
	if err := checkWorkerName(c.Worker); err != nil {
		return nil, fmt.Errorf("credential file %s: %w", path, err)
	}
	if _, err := c.PublicKey(); err != nil {
		return nil, fmt.Errorf("broker: credential file %s: %v", path, err)
	}
	return &c, nil
}

// InboxPrefix is the prefix of a worker's reply subjects: the hex of its
// name, so that no worker's subjects are within another's.
func InboxPrefix(worker string) string { return "_INBOX." + hex.EncodeToString([]byte(worker)) }

// WorkerPermissions are the subjects a worker may use: publish its own
// chunks and counter; read the run's configuration, the best pointer, the
// run's state, its own counter and the models, through stream info and
// direct gets only; and receive on its own inbox and the subjects of the
// best pointer and the run's state (the trainer's puts arrive there).
// Everything else (creating or deleting streams and consumers of any kind,
// writing the best pointer, the configuration or the run's state, reading
// chunks or other workers' counters) is refused by the server.
//
// A worker creates no consumer: a consumer's request carries its durable
// name and deliver subject in its body, out of reach of subject
// permissions, so a worker allowed one could keep any number on the
// trainer's disk, have the server deliver to any subject, and delete the
// trainer's or other workers' consumers by name.
func WorkerPermissions(worker string) (publish, subscribe []string) {
	kv := "$KV." + runBucket + "."
	direct := "$JS.API.DIRECT.GET.KV_" + runBucket + "." + kv
	publish = []string{
		chunkSubject + "." + worker,
		kv + seqPrefix + worker,
		"$JS.API.STREAM.INFO.KV_" + runBucket,
		"$JS.API.STREAM.INFO.OBJ_" + modelBucket,
		direct + configKey, direct + configSigKey, direct + bestKey, direct + stateKey, direct + seqPrefix + worker,
		// An object's description, then its chunks one by one by
		// subject (next_by_subj); the model store holds nothing else.
		"$JS.API.DIRECT.GET.OBJ_" + modelBucket + ".$O." + modelBucket + ".M.*",
		"$JS.API.DIRECT.GET.OBJ_" + modelBucket,
	}
	subscribe = []string{InboxPrefix(worker) + ".>", kv + bestKey, kv + stateKey}
	return publish, subscribe
}

// users is the roster as the server's users.
func (r *Roster) users() []*server.User {
	us := []*server.User{{Username: TrainerUser, Password: r.Trainer}}
	names := make([]string, 0, len(r.Workers))
	for n := range r.Workers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		pub, sub := WorkerPermissions(n)
		us = append(us, &server.User{Username: n, Password: r.Workers[n], Permissions: &server.Permissions{
			Publish:   &server.SubjectPermission{Allow: pub},
			Subscribe: &server.SubjectPermission{Allow: sub},
		}})
	}
	return us
}
