package broker

import (
	"errors"
	"fmt"
	"net"
	"os"
	"reflect"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// ServerOptions configures an embedded NATS server.
type ServerOptions struct {
	Addr     string // listen address HOST:PORT (":PORT" is every interface); default "127.0.0.1:4222"
	StoreDir string // JetStream storage (required), e.g. <run>/broker/jetstream
	// Token is required of every client. It may be empty only when Addr
	// is a loopback address or Roster is set.
	Token string
	// Roster, if set, is a broker folder holding a Roster (RosterFile):
	// the server's users are its trainer and workers, with the workers'
	// permissions, instead of a token. The server reads the file again
	// when it changes, so an added worker is let in and a revoked one is
	// disconnected and refused within about a second.
	Roster string
	// TLSCert and TLSKey (PEM files) make the server speak TLS; with
	// TLSCA it also requires and checks client certificates.
	TLSCert, TLSKey, TLSCA string
	// MaxPayload is the largest message in bytes (default MaxChunkBytes:
	// a chunk is the largest message a worker sends, and a model goes to
	// the object store in chunks of 128 KiB).
	MaxPayload int32
}

// Server is a NATS server with JetStream running in this process.
type Server struct {
	s    *server.Server
	url  string
	opts server.Options // as started, for reloading the roster
	stop chan struct{}  // ends the roster follower
	done chan struct{}
}

// IsLoopback reports whether a listen address only accepts connections from
// this machine.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// StartServer starts a NATS server with JetStream storage in opt.StoreDir
// and waits until it accepts connections.
func StartServer(opt ServerOptions) (*Server, error) {
	if opt.Addr == "" {
		opt.Addr = "127.0.0.1:4222"
	}
	if opt.StoreDir == "" {
		return nil, errors.New("broker: the server needs a storage folder")
	}
	host, portStr, err := net.SplitHostPort(opt.Addr)
	if err != nil {
		return nil, fmt.Errorf("broker: listen address %q: want HOST:PORT", opt.Addr)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("broker: listen address %q: bad port", opt.Addr)
	}
	if opt.Token != "" && opt.Roster != "" {
		return nil, errors.New("broker: a server has a token or a roster, not both")
	}
	var roster *Roster
	if opt.Roster != "" {
		if roster, err = LoadRoster(opt.Roster); err != nil {
			return nil, err
		}
	}
	if opt.Token == "" && roster == nil && !IsLoopback(opt.Addr) {
		return nil, fmt.Errorf("broker: listen address %q is not loopback: a token is required", opt.Addr)
	}
	if host == "" {
		host = "0.0.0.0"
	}
	if port == 0 {
		port = server.RANDOM_PORT // the server reads 0 as its default port
	}
	if opt.MaxPayload == 0 {
		opt.MaxPayload = MaxChunkBytes
	}
	if err := os.MkdirAll(opt.StoreDir, 0o700); err != nil {
		return nil, fmt.Errorf("broker: %w", err)
	}
	so := &server.Options{
		ServerName: "dama", Host: host, Port: port,
		JetStream: true, StoreDir: opt.StoreDir,
		Authorization: opt.Token, MaxPayload: opt.MaxPayload,
		NoSigs: true, NoLog: true, HTTPPort: 0,
	}
	if roster != nil {
		so.Users = roster.users()
	}
	scheme := "nats"
	if opt.TLSCert != "" || opt.TLSKey != "" {
		tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: opt.TLSCert, KeyFile: opt.TLSKey, CaFile: opt.TLSCA, Verify: opt.TLSCA != ""})
		if err != nil {
			return nil, fmt.Errorf("broker: TLS: %w", err)
		}
		so.TLSConfig, so.TLS, so.TLSVerify, so.TLSTimeout = tc, true, opt.TLSCA != "", 5
		scheme = "tls"
	}
	s, err := server.NewServer(so)
	if err != nil {
		return nil, fmt.Errorf("broker: %w", err)
	}
	go s.Start()
	if !s.ReadyForConnections(30 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("broker: the server did not start listening on %s (port in use?)", opt.Addr)
	}
	a := s.Addr().(*net.TCPAddr)
	h := host
	if h == "0.0.0.0" || h == "::" {
		h = "127.0.0.1"
	}
	srv := &Server{s: s, url: fmt.Sprintf("%s://%s", scheme, net.JoinHostPort(h, strconv.Itoa(a.Port))),
		opts: *so, stop: make(chan struct{}), done: make(chan struct{})}
	if roster != nil {
		go srv.followRoster(opt.Roster, roster)
	} else {
		close(srv.done)
	}
	return srv, nil
}

// followRoster reloads the server's users when the roster in dir changes.
// A roster that cannot be read keeps the users as they are.
func (s *Server) followRoster(dir string, cur *Roster) {
	defer close(s.done)
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	warned := ""
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		r, err := LoadRoster(dir)
		if err != nil {
			if err.Error() != warned {
				s.s.Warnf("dama: %v (keeping the users as they are)", err)
				warned = err.Error()
			}
			continue
		}
		if reflect.DeepEqual(r, cur) {
			continue
		}
		if err := s.SetRoster(r); err == nil {
			cur = r
		}
	}
}

// SetRoster replaces the server's users with r's; clients whose user is
// gone, or whose password changed, are disconnected.
func (s *Server) SetRoster(r *Roster) error {
	o := s.opts.Clone()
	o.Users = r.users()
	if err := s.s.ReloadOptions(o); err != nil {
		return fmt.Errorf("broker: reloading the users: %w", err)
	}
	return nil
}

// URL is where a client on this machine reaches the server.
func (s *Server) URL() string { return s.url }

// Shutdown stops the server; its JetStream state stays in the store folder.
func (s *Server) Shutdown() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
	s.s.Shutdown()
	s.s.WaitForShutdown()
}

// EnsureToken returns the token in the file at path, writing a new random
// one (mode 0600) if the file does not exist.
func EnsureToken(path string) (string, error) {
	if _, err := os.Stat(path); err == nil {
		return ReadToken(path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	tok, err := randomSecret()
	if err != nil {
		return "", err
	}
	if err := writePrivate(path, []byte(tok+"\n")); err != nil {
		return "", err
	}
	return tok, nil
}
