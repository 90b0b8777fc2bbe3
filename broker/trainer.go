package broker

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	"dama/runfolder"
	"dama/selfplay"
)

// TrainerOptions say how the trainer of a run reaches its workers
// (StartTrainer): through a broker it serves, or one elsewhere.
type TrainerOptions struct {
	// Serve is the HOST:PORT of a broker to serve in this process, its
	// storage and users in the run's broker folder; "" to use URL.
	Serve string
	URL   string // a NATS JetStream server or cluster to use without Serve
	Auth  Auth   // the trainer's credential at URL
	// TLSCert and TLSKey are the served broker's certificate and key;
	// TLSCA signs its clients' certificates (ServerOptions).
	TLSCert, TLSKey, TLSCA string
	Run                    *runfolder.Run
	Log                    io.Writer         // how workers join, and the bridge's lines
	Check                  *selfplay.Checker // the trainer's check of each chunk (BridgeOptions.Check)
	Want                   int               // the games a generation takes (BridgeOptions.Want)
}

// Trainer is the trainer's side of a run's broker: the Bridge, whose
// OnBest, OnPlan and OnConfig the training loop calls, and the server
// when it serves one.
type Trainer struct {
	Bridge *Bridge
	srv    *Server
}

// StartTrainer serves the broker of opt.Run (opt.Serve, its users in the
// roster, RUN/broker) or connects to the one at opt.URL, says on opt.Log
// where it is and how a worker joins, and starts the Bridge between it
// and the run folder, signing with the trainer's key (EnsureSigner).
func StartTrainer(ctx context.Context, opt TrainerOptions) (*Trainer, error) {
	run, url, auth := opt.Run, opt.URL, opt.Auth
	t := &Trainer{}
	if opt.Serve != "" {
		roster, err := EnsureRoster(run.Path("broker"))
		if err != nil {
			return nil, err
		}
		t.srv, err = StartServer(ServerOptions{
			Addr: opt.Serve, StoreDir: run.Path("broker", "jetstream"), Roster: run.Path("broker"),
			TLSCert: opt.TLSCert, TLSKey: opt.TLSKey, TLSCA: opt.TLSCA,
		})
		if err != nil {
			return nil, err
		}
		url = t.srv.URL()
		auth = roster.TrainerAuth()
		auth.From = "the trainer's password in " + run.Path("broker", RosterFile)
		sayServed(opt, url)
	}
	signer, err := EnsureSigner(run.Path("broker"))
	if err != nil {
		t.Stop(false)
		return nil, err
	}
	t.Bridge, err = NewBridge(ctx, BridgeOptions{URL: url, Auth: auth, Local: t.srv, Run: run, Signer: signer, Log: opt.Log, Check: opt.Check, Want: opt.Want})
	if err != nil {
		t.Stop(false)
		return nil, err
	}
	return t, nil
}

// sayServed writes to opt.Log where the broker served at url listens and
// how a worker joins it.
func sayServed(opt TrainerOptions, url string) {
	run, w := opt.Run, opt.Log
	if _, err := os.Stat(run.Path("broker", "token")); err == nil {
		fmt.Fprintf(w, "broker: note: %s is no longer used: each worker needs its own credential (dama broker add-worker NAME --run %s)\n", run.Path("broker", "token"), run.Dir)
	}
	host, _, _ := net.SplitHostPort(opt.Serve)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(strings.TrimPrefix(url, "nats://"), "tls://"))
	if host == "" || host == "0.0.0.0" || host == "::" {
		if h, err := os.Hostname(); err == nil {
			host = h
		}
	}
	scheme := "nats"
	if opt.TLSCert != "" {
		scheme = "tls"
	}
	fmt.Fprintf(w, "broker: serving %s://%s (JetStream storage %s)\n", scheme, net.JoinHostPort(host, port), run.Path("broker", "jetstream"))
	fmt.Fprintf(w, "broker: workers: dama broker add-worker NAME --run %s, copy the credential file it writes (keep it mode 0600) and run  dama selfplay worker --broker %s://%s --credential FILE\n",
		run.Dir, scheme, net.JoinHostPort(host, port))
	if !IsLoopback(opt.Serve) && opt.TLSCert == "" {
		fmt.Fprintln(w, "broker: note: without --tls-cert the passwords and games cross the network in clear; use TLS outside a trusted network")
	}
}

// Stop stops the bridge, telling the workers that the run is done
// (finished) or paused, and the server it serves.
func (t *Trainer) Stop(finished bool) {
	if t.Bridge != nil {
		if finished {
			t.Bridge.SetFinished()
		}
		t.Bridge.Close()
	}
	if t.srv != nil {
		t.srv.Shutdown()
	}
}
