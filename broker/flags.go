package broker

import (
	"errors"
	"flag"
	"fmt"
	neturl "net/url"
)

// Flags are the command-line flags that connect to a broker (--broker and
// its credentials) or, for a trainer, serve one (--serve); AddFlags
// declares them on a command's flag set.
type Flags struct {
	Serve, URL              string
	Token, TokenFile, Creds string
	Credential              string // a worker's credential file (AddWorker)
	TLSCert, TLSKey, TLSCA  string
}

// ClientFlags are the flags that only a client of a broker (--broker)
// reads: a command without --broker refuses them.
var ClientFlags = []string{"token", "token-file", "creds", "credential", "tls-ca", "tls-cert", "tls-key"}

// AddFlags declares the broker's flags on fs: a trainer's (--serve, and
// --broker with a token or credentials) or a worker's (--broker with
// --credential).
func AddFlags(fs *flag.FlagSet, trainer bool) *Flags {
	f := &Flags{}
	if trainer {
		fs.StringVar(&f.Serve, "serve", "", "run an embedded NATS JetStream broker on HOST:PORT (e.g. 127.0.0.1:4222, or :4222 for every interface) with its storage and users in RUN/broker; add workers with dama broker add-worker, and they connect with dama selfplay worker --broker")
	} else {
		fs.StringVar(&f.Credential, "credential", "", "this worker's credential file (mode 0600) from dama broker add-worker: its name, its user on a --serve broker, and the trainer's key models and settings are checked against")
	}
	fs.StringVar(&f.URL, "broker", "", "URL of a NATS JetStream server or cluster to carry the run (e.g. nats://host:4222)")
	fs.StringVar(&f.Token, "token", "", "broker token (visible to other users in the process list: prefer --token-file)")
	fs.StringVar(&f.TokenFile, "token-file", "", "file holding the token of a NATS server given by --broker (mode 0600)")
	fs.StringVar(&f.Creds, "creds", "", "NATS credentials file (JWT and NKey seed) for --broker")
	fs.StringVar(&f.TLSCert, "tls-cert", "", "PEM certificate: the served broker's (--serve), or this client's (--broker)")
	fs.StringVar(&f.TLSKey, "tls-key", "", "PEM key of --tls-cert")
	fs.StringVar(&f.TLSCA, "tls-ca", "", "PEM CA: that signed the broker's certificate (--broker), or that clients' certificates must be signed by (--serve)")
	return f
}

// Used reports whether the flags ask for a broker: one to serve or one
// to use.
func (f *Flags) Used() bool { return f.Serve != "" || f.URL != "" }

// CheckTrainer checks a trainer's flags go together: a broker served or
// one used, and a served broker's users are its own.
func (f *Flags) CheckTrainer() error {
	switch {
	case f.Serve != "" && f.URL != "":
		return errors.New("--serve and --broker do not go together: serve a broker here, or use one elsewhere")
	case f.Serve != "" && (f.Token != "" || f.TokenFile != "" || f.Creds != ""):
		return errors.New("--token, --token-file and --creds go with --broker: --serve keeps its own users in RUN/broker (dama broker add-worker)")
	}
	return nil
}

// Trainer returns the trainer's options the flags give (its Run, Log,
// Check and Want left to the caller), checked as CheckTrainer checks them.
func (f *Flags) Trainer() (TrainerOptions, error) {
	to := TrainerOptions{Serve: f.Serve, URL: f.URL, TLSCert: f.TLSCert, TLSKey: f.TLSKey, TLSCA: f.TLSCA}
	if err := f.CheckTrainer(); err != nil {
		return to, err
	}
	if f.Serve != "" {
		return to, nil
	}
	var err error
	to.Auth, err = f.Auth()
	return to, err
}

// Auth returns the client credential the flags give.
func (f *Flags) Auth() (Auth, error) {
	a := Auth{Token: f.Token, Creds: f.Creds, CA: f.TLSCA, Cert: f.TLSCert, Key: f.TLSKey}
	switch {
	case f.Token != "":
		a.From = "--token"
	case f.Creds != "":
		a.From = "--creds " + f.Creds
	}
	if f.TokenFile != "" {
		if f.Token != "" {
			return a, errors.New("--token and --token-file do not go together")
		}
		tok, err := ReadToken(f.TokenFile)
		if err != nil {
			return a, err
		}
		a.Token, a.From = tok, "--token-file "+f.TokenFile
	}
	return a, nil
}

// WorkerAuth returns a worker's credential file and the client credential
// it connects with: the file's user on a served broker, or the token or
// NATS credentials the flags give for another server.
func (f *Flags) WorkerAuth() (*Credential, Auth, error) {
	if u, err := neturl.Parse(f.URL); err == nil && u.User != nil {
		return nil, Auth{}, fmt.Errorf("--broker %s: a user or token in the URL bypasses the credential-file checks; give it with --credential, --token-file or --creds", u.Redacted())
	}
	if f.Credential == "" {
		return nil, Auth{}, errors.New("--broker needs --credential FILE, written on the trainer's machine by dama broker add-worker NAME --run DIR: it carries the trainer's key that models and settings are checked against")
	}
	c, err := ReadCredential(f.Credential)
	if err != nil {
		return nil, Auth{}, err
	}
	a, err := f.Auth()
	if err != nil {
		return nil, a, err
	}
	if a.Token == "" && a.Creds == "" {
		a.User, a.Password, a.From = c.User, c.Password, "--credential "+f.Credential
	}
	return c, a, nil
}

// Worker returns the options of the worker named name ("": the
// credential's) that the flags give: the broker's URL, the client
// credential (WorkerAuth) and the trainer's key the credential carries;
// a name other than the credential's is an error. The caller sets the
// games, the chunks, the seed and the log.
func (f *Flags) Worker(name string) (WorkerOptions, error) {
	cred, auth, err := f.WorkerAuth()
	if err != nil {
		return WorkerOptions{}, err
	}
	if name == "" {
		name = cred.Worker
	}
	if name != cred.Worker {
		return WorkerOptions{}, fmt.Errorf("--worker %s: the credential %s is worker %s's", name, f.Credential, cred.Worker)
	}
	key, err := cred.PublicKey()
	if err != nil {
		return WorkerOptions{}, err
	}
	return WorkerOptions{URL: f.URL, Auth: auth, TrainerKey: key, Name: name}, nil
}
