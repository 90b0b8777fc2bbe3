package broker

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"dama/internal/atomicfile"
)

// ServerOptions configures an embedded NATS server.
type ServerOptions struct {
	Addr     string // listen address HOST:PORT (":PORT" is every interface); default "127.0.0.1:4222"
	StoreDir string // JetStream storage (required), e.g. <run>/broker/jetstream
	// Token is required of every client. It may be empty only when Addr
	// is a loopback address.
	Token string
	// TLSCert and TLSKey (PEM files) make the server speak TLS; with
	// TLSCA it also requires and checks client certificates.
	TLSCert, TLSKey, TLSCA string
	// MaxPayload is the largest message in bytes (default 8 MiB).
	MaxPayload int32
}

// Server is a NATS server with JetStream running in this process.
type Server struct {
	s   *server.Server
	url string
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
	if opt.Token == "" && !IsLoopback(opt.Addr) {
		return nil, fmt.Errorf("broker: listen address %q is not loopback: a token is required", opt.Addr)
	}
	if host == "" {
		host = "0.0.0.0"
	}
	if port == 0 {
		port = server.RANDOM_PORT // the server reads 0 as its default port
	}
	if opt.MaxPayload == 0 {
		opt.MaxPayload = 8 << 20
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
	return &Server{s: s, url: fmt.Sprintf("%s://%s", scheme, net.JoinHostPort(h, strconv.Itoa(a.Port)))}, nil
}

// URL is where a client on this machine reaches the server.
func (s *Server) URL() string { return s.url }

// Shutdown stops the server; its JetStream state stays in the store folder.
func (s *Server) Shutdown() {
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
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	tok := hex.EncodeToString(b)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	// The temporary file is made private before the token goes in.
	err := atomicfile.Write(path, func(w io.Writer) error {
		f, ok := w.(*os.File)
		if !ok {
			return errors.New("broker: token file: not a file")
		}
		if err := f.Chmod(0o600); err != nil {
			return err
		}
		_, err := io.WriteString(f, tok+"\n")
		return err
	})
	if err != nil {
		return "", err
	}
	return tok, nil
}
