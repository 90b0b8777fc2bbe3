package main

import (
	"context"
	"errors"
	"fmt"
	neturl "net/url"

	"dama/broker"
	"dama/runfolder"
	"dama/selfplay"
	"dama/train"
)

// brokerFlags are the flags of dama train and dama selfplay that connect to
// (or, for train, serve) a NATS JetStream broker.
type brokerFlags struct {
	serve, url              string
	token, tokenFile, creds string
	credential              string // a worker's credential file (dama broker add-worker)
	tlsCert, tlsKey, tlsCA  string
	trainer                 bool
}

func (b *brokerFlags) register(fs *flagSet, trainer bool) {
	*b = brokerFlags{trainer: trainer}
	if trainer {
		fs.StringVar(&b.serve, "serve", "", "run an embedded NATS JetStream broker on HOST:PORT (e.g. 127.0.0.1:4222, or :4222 for every interface) with its storage and users in RUN/broker; add workers with dama broker add-worker, and they connect with dama selfplay worker --broker")
	} else {
		fs.StringVar(&b.credential, "credential", "", "this worker's credential file (mode 0600) from dama broker add-worker: its name, its user on a --serve broker, and the trainer's key models and settings are checked against")
	}
	fs.StringVar(&b.url, "broker", "", "URL of a NATS JetStream server or cluster to carry the run (e.g. nats://host:4222)")
	fs.StringVar(&b.token, "token", "", "broker token (visible to other users in the process list: prefer --token-file)")
	fs.StringVar(&b.tokenFile, "token-file", "", "file holding the token of a NATS server given by --broker (mode 0600)")
	fs.StringVar(&b.creds, "creds", "", "NATS credentials file (JWT and NKey seed) for --broker")
	fs.StringVar(&b.tlsCert, "tls-cert", "", "PEM certificate: the served broker's (--serve), or this client's (--broker)")
	fs.StringVar(&b.tlsKey, "tls-key", "", "PEM key of --tls-cert")
	fs.StringVar(&b.tlsCA, "tls-ca", "", "PEM CA: that signed the broker's certificate (--broker), or that clients' certificates must be signed by (--serve)")
}

// auth returns the client credential the flags give.
func (b *brokerFlags) auth() (broker.Auth, error) {
	a := broker.Auth{Token: b.token, Creds: b.creds, CA: b.tlsCA, Cert: b.tlsCert, Key: b.tlsKey}
	switch {
	case b.token != "":
		a.From = "--token"
	case b.creds != "":
		a.From = "--creds " + b.creds
	}
	if b.tokenFile != "" {
		if b.token != "" {
			return a, errors.New("--token and --token-file do not go together")
		}
		tok, err := broker.ReadToken(b.tokenFile)
		if err != nil {
			return a, err
		}
		a.Token, a.From = tok, "--token-file "+b.tokenFile
	}
	return a, nil
}

// workerAuth returns a worker's credential file and the client credential
// it connects with: the file's user on a served broker, or the token or
// NATS credentials the flags give for another server.
func (b *brokerFlags) workerAuth() (*broker.Credential, broker.Auth, error) {
	if u, err := neturl.Parse(b.url); err == nil && u.User != nil {
		return nil, broker.Auth{}, fmt.Errorf("--broker %s: a user or token in the URL bypasses the credential-file checks; give it with --credential, --token-file or --creds", u.Redacted())
	}
	if b.credential == "" {
		return nil, broker.Auth{}, errors.New("--broker needs --credential FILE, written on the trainer's machine by dama broker add-worker NAME --run DIR: it carries the trainer's key that models and settings are checked against")
	}
	c, err := broker.ReadCredential(b.credential)
	if err != nil {
		return nil, broker.Auth{}, err
	}
	a, err := b.auth()
	if err != nil {
		return nil, a, err
	}
	if a.Token == "" && a.Creds == "" {
		a.User, a.Password, a.From = c.User, c.Password, "--credential "+b.credential
	}
	return c, a, nil
}

// startBroker serves or connects to the broker for dama train
// (broker.StartTrainer) and hooks the bridge into opt; the returned
// function stops both, telling workers the run is done (finished) or
// paused.
func startBroker(ctx context.Context, e *env, b *brokerFlags, dir string, opt *train.Options) (func(finished bool), error) {
	run, err := runfolder.Open(dir)
	if err != nil {
		return nil, err
	}
	// One index of the run's games for the trainer and the bridge: the
	// bridge refuses a chunk repeating a game the trainer took.
	check := selfplay.RunChecker(opt.Config.SelfPlay, run.SelfPlayHistory, run.Path(runfolder.AcceptedDir))
	opt.Held = selfplay.NewGameIndex()
	check.Held = opt.Held
	to := broker.TrainerOptions{Serve: b.serve, URL: b.url, TLSCert: b.tlsCert, TLSKey: b.tlsKey, TLSCA: b.tlsCA, Run: run, Log: e.stdout,
		Check: check, Want: opt.Config.SelfPlay.GamesPerGeneration}
	if b.serve != "" {
		if b.token != "" || b.tokenFile != "" || b.creds != "" {
			return nil, errors.New("--token, --token-file and --creds go with --broker: --serve keeps its own users in RUN/broker (dama broker add-worker)")
		}
	} else if to.Auth, err = b.auth(); err != nil {
		return nil, err
	}
	t, err := broker.StartTrainer(ctx, to)
	if err != nil {
		return nil, err
	}
	opt.OnBest, opt.OnPlan, opt.OnConfig, opt.OnQuarantine = t.Bridge.OnBest, t.Bridge.OnPlan, t.Bridge.OnConfig, t.Bridge.OnQuarantine
	return t.Stop, nil
}
