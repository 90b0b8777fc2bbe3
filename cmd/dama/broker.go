package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
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
	tlsCert, tlsKey, tlsCA  string
	trainer                 bool
}

func (b *brokerFlags) register(fs *flag.FlagSet, trainer bool) {
	*b = brokerFlags{trainer: trainer}
	if trainer {
		fs.StringVar(&b.serve, "serve", "", "run an embedded NATS JetStream broker on HOST:PORT (e.g. 127.0.0.1:4222, or :4222 for every interface) with its storage and token in the run folder; workers connect with dama selfplay --broker")
	}
	fs.StringVar(&b.url, "broker", "", "URL of a NATS JetStream server or cluster to carry the run (e.g. nats://host:4222)")
	fs.StringVar(&b.token, "token", "", "broker token (visible to other users in the process list: prefer --token-file)")
	fs.StringVar(&b.tokenFile, "token-file", "", "file holding the broker token (mode 0600); dama train --serve writes RUN/broker/token")
	fs.StringVar(&b.creds, "creds", "", "NATS credentials file (JWT and NKey seed) for --broker")
	fs.StringVar(&b.tlsCert, "tls-cert", "", "PEM certificate: the served broker's (--serve), or this client's (--broker)")
	fs.StringVar(&b.tlsKey, "tls-key", "", "PEM key of --tls-cert")
	fs.StringVar(&b.tlsCA, "tls-ca", "", "PEM CA: that signed the broker's certificate (--broker), or that clients' certificates must be signed by (--serve)")
}

// auth returns the client credential the flags give.
func (b *brokerFlags) auth() (broker.Auth, error) {
	a := broker.Auth{Token: b.token, Creds: b.creds, CA: b.tlsCA, Cert: b.tlsCert, Key: b.tlsKey}
	if b.tokenFile != "" {
		if b.token != "" {
			return a, errors.New("--token and --token-file do not go together")
		}
		tok, err := broker.ReadToken(b.tokenFile)
		if err != nil {
			return a, err
		}
		a.Token = tok
	}
	return a, nil
}

// startBroker serves or connects to the broker for dama train and hooks
// the bridge into opt; the returned function stops both.
func startBroker(ctx context.Context, b *brokerFlags, dir string, opt *train.Options) (func(), error) {
	run, err := runfolder.Open(dir)
	if err != nil {
		return nil, err
	}
	url := b.url
	var srv *broker.Server
	var auth broker.Auth
	if b.serve != "" {
		if b.token != "" || b.tokenFile != "" || b.creds != "" {
			return nil, errors.New("--token, --token-file and --creds go with --broker: --serve keeps its own token in RUN/broker/token")
		}
		tokenPath := run.Path("broker", "token")
		tok, err := broker.EnsureToken(tokenPath)
		if err != nil {
			return nil, err
		}
		srv, err = broker.StartServer(broker.ServerOptions{
			Addr: b.serve, StoreDir: run.Path("broker", "jetstream"), Token: tok,
			TLSCert: b.tlsCert, TLSKey: b.tlsKey, TLSCA: b.tlsCA,
		})
		if err != nil {
			return nil, err
		}
		url = srv.URL()
		auth = broker.Auth{Token: tok}
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
		fmt.Fprintf(stdout, "broker: serving %s://%s (JetStream storage %s)\n", scheme, net.JoinHostPort(host, port), run.Path("broker", "jetstream"))
		fmt.Fprintf(stdout, "broker: workers: copy %s (keep it mode 0600) and run  dama selfplay --broker %s://%s --token-file TOKENFILE --worker NAME\n",
			tokenPath, scheme, net.JoinHostPort(host, port))
		if !broker.IsLoopback(b.serve) && b.tlsCert == "" {
			fmt.Fprintln(stdout, "broker: note: without --tls-cert the token and games cross the network in clear; use TLS outside a trusted network")
		}
	} else {
		if auth, err = b.auth(); err != nil {
			return nil, err
		}
	}
	br, err := broker.NewBridge(ctx, broker.BridgeOptions{URL: url, Auth: auth, Local: srv, Run: run, Log: stdout,
		Check: selfplay.RunChecker(opt.Config.SelfPlay, run.Path(runfolder.AcceptedDir))})
	if err != nil {
		if srv != nil {
			srv.Shutdown()
		}
		return nil, err
	}
	opt.OnBest, opt.OnPlan = br.OnBest, br.OnPlan
	return func() {
		br.Close()
		if srv != nil {
			srv.Shutdown()
		}
	}, nil
}
