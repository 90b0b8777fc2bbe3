package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	neturl "net/url"
	"os"
	"strings"

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

// startBroker serves or connects to the broker for dama train and hooks
// the bridge into opt; the returned function stops both, telling workers
// the run is done (finished) or paused.
func startBroker(ctx context.Context, e *env, b *brokerFlags, dir string, opt *train.Options) (func(finished bool), error) {
	run, err := runfolder.Open(dir)
	if err != nil {
		return nil, err
	}
	url := b.url
	var srv *broker.Server
	var auth broker.Auth
	if b.serve != "" {
		if b.token != "" || b.tokenFile != "" || b.creds != "" {
			return nil, errors.New("--token, --token-file and --creds go with --broker: --serve keeps its own users in RUN/broker (dama broker add-worker)")
		}
		roster, err := broker.EnsureRoster(run.Path("broker"))
		if err != nil {
			return nil, err
		}
		srv, err = broker.StartServer(broker.ServerOptions{
			Addr: b.serve, StoreDir: run.Path("broker", "jetstream"), Roster: run.Path("broker"),
			TLSCert: b.tlsCert, TLSKey: b.tlsKey, TLSCA: b.tlsCA,
		})
		if err != nil {
			return nil, err
		}
		url = srv.URL()
		auth = roster.TrainerAuth()
		auth.From = "the trainer's password in " + run.Path("broker", broker.RosterFile)
		if _, err := os.Stat(run.Path("broker", "token")); err == nil {
			fmt.Fprintf(e.stdout, "broker: note: %s is no longer used: each worker needs its own credential (dama broker add-worker NAME --run %s)\n", run.Path("broker", "token"), dir)
		}
		host, _, _ := net.SplitHostPort(b.serve)
		_, port, _ := net.SplitHostPort(strings.TrimPrefix(strings.TrimPrefix(url, "nats://"), "tls://"))
		if host == "" || host == "0.0.0.0" || host == "::" {
			if h, err := os.Hostname(); err == nil {
				host = h
			}
		}
		scheme := "nats"
		if b.tlsCert != "" {
			scheme = "tls"
		}
		fmt.Fprintf(e.stdout, "broker: serving %s://%s (JetStream storage %s)\n", scheme, net.JoinHostPort(host, port), run.Path("broker", "jetstream"))
		fmt.Fprintf(e.stdout, "broker: workers: dama broker add-worker NAME --run %s, copy the credential file it writes (keep it mode 0600) and run  dama selfplay worker --broker %s://%s --credential FILE\n",
			dir, scheme, net.JoinHostPort(host, port))
		if !broker.IsLoopback(b.serve) && b.tlsCert == "" {
			fmt.Fprintln(e.stdout, "broker: note: without --tls-cert the passwords and games cross the network in clear; use TLS outside a trusted network")
		}
	} else {
		if auth, err = b.auth(); err != nil {
			return nil, err
		}
	}
	signer, err := broker.EnsureSigner(run.Path("broker"))
	if err != nil {
		if srv != nil {
			srv.Shutdown()
		}
		return nil, err
	}
	// One index of the run's games for the trainer and the bridge: the
	// bridge refuses a chunk repeating a game the trainer took.
	check := selfplay.RunChecker(opt.Config.SelfPlay, run.SelfPlayHistory, run.Path(runfolder.AcceptedDir))
	opt.Held = selfplay.NewGameIndex()
	check.Held = opt.Held
	br, err := broker.NewBridge(ctx, broker.BridgeOptions{URL: url, Auth: auth, Local: srv, Run: run, Signer: signer, Log: e.stdout,
		Check: check, Want: opt.Config.SelfPlay.GamesPerGeneration})
	if err != nil {
		if srv != nil {
			srv.Shutdown()
		}
		return nil, err
	}
	opt.OnBest, opt.OnPlan, opt.OnConfig, opt.OnQuarantine = br.OnBest, br.OnPlan, br.OnConfig, br.OnQuarantine
	return func(finished bool) {
		if finished {
			br.SetFinished()
		}
		br.Close()
		if srv != nil {
			srv.Shutdown()
		}
	}, nil
}
