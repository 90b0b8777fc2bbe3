package broker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	neturl "net/url"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"dama/internal/tokenfile"
)

// protocolVersion is the version of the broker protocol: the names, headers and
// the JSON of the best pointer described in the package comment.
const protocolVersion = 1

// Names on the broker.
const (
	runBucket    = "dama_run"
	modelBucket  = "dama_models"
	ChunkStream  = "DAMA_CHUNKS"
	chunkSubject = "dama.chunks" // a worker publishes on chunkSubject.<its name>
	trainerName  = "trainer"     // the trainer's durable consumer

	configKey = "config"
	bestKey   = "best"
	seqPrefix = "seq."

	hdrVersion = "Dama-Version"
	hdrChunk   = "Dama-Chunk"
)

// bestPointer is the value of the "best" key: the best model's object name
// and the SHA-256 of its bytes.
type bestPointer struct {
	Version int    `json:"version"`
	Name    string `json:"name"`   // object name, e.g. "accepted/0003.ckpt"
	Digest  string `json:"digest"` // "sha256:" and hex
	Size    int    `json:"size"`
	// Signature is the trainer's ed25519 signature of the name and
	// digest (base64); a worker plays no model whose pointer's signature
	// does not verify with the key its credential carries.
	Signature string `json:"signature,omitempty"`
}

// Auth is how a client proves who it is, and how it checks the server.
type Auth struct {
	Token string // a token the server was started with
	// User and Password are a user of a served broker's roster (a
	// worker's come in its Credential).
	User, Password string
	Creds          string // a NATS credentials file (JWT and NKey seed)
	CA             string // PEM file of the CA that signed the server's TLS certificate
	Cert           string // PEM client certificate and key, for servers that verify clients
	Key            string
	// From says where the credential came from, for the message of a
	// refusal (e.g. "--credential gpu1.cred"); "" names its kind.
	From string
}

// source is where a refused credential came from, for its message.
func (a Auth) source() string {
	switch {
	case a.From != "":
		return a.From
	case a.Creds != "":
		return "the NATS credentials file " + a.Creds
	case a.Token != "":
		return "a token"
	case a.User != "":
		return "user " + a.User
	}
	return "no credential"
}

// authGrace is how long a user and password the server refuses are tried
// again: a served broker takes a worker added by dama broker add-worker
// within about a second, and a worker started at once must not give up.
const authGrace = 5 * time.Second

// ErrAuth is returned (wrapped) when the server refuses the credential.
var ErrAuth = errors.New("the broker refused the credential")

// ReadToken reads a token file (tokenfile.Read): one line, and it must
// not be readable by others.
func ReadToken(path string) (string, error) { return tokenfile.Read(path) }

// Connect connects to the broker at url. A refused credential fails with
// ErrAuth, at once for a token or credentials file, after authGrace for a
// user and password (a worker added just now); a server that cannot be
// reached is tried again every second until ctx ends, so a worker may
// start before the trainer. Once connected, the client reconnects by
// itself for ever. Extra options go after dama's own.
func Connect(ctx context.Context, url, name string, auth Auth, log func(string, ...any), extra ...nats.Option) (*nats.Conn, error) {
	opts := []nats.Option{
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(500 * time.Millisecond),
		nats.Timeout(5 * time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log("broker: disconnected: %v", err)
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) { log("broker: reconnected to %s", nc.ConnectedUrlRedacted()) }),
		nats.ErrorHandler(asyncErrors(log)),
	}
	for one := range strings.SplitSeq(url, ",") {
		if u, err := neturl.Parse(strings.TrimSpace(one)); err == nil && u.User != nil {
			return nil, fmt.Errorf("broker %s: a user or token in the URL bypasses the credential-file checks; give it with --token-file, --creds or --credential", u.Redacted())
		}
	}
	if auth.Token != "" {
		opts = append(opts, nats.Token(auth.Token))
	}
	if auth.User != "" {
		opts = append(opts, nats.UserInfo(auth.User, auth.Password))
	}
	if auth.Creds != "" {
		opts = append(opts, nats.UserCredentials(auth.Creds))
	}
	if auth.CA != "" {
		opts = append(opts, nats.RootCAs(auth.CA))
	}
	if auth.Cert != "" || auth.Key != "" {
		opts = append(opts, nats.ClientCert(auth.Cert, auth.Key))
	}
	opts = append(opts, extra...)
	var refused time.Time // the first refusal of a user and password
	for attempt := 0; ; attempt++ {
		nc, err := nats.Connect(url, opts...)
		if err == nil {
			return nc, nil
		}
		if isAuthError(err) {
			if auth.User == "" || auth.Token != "" || auth.Creds != "" {
				return nil, fmt.Errorf("broker %s: %w, %s: %v", url, ErrAuth, auth.source(), err)
			}
			if refused.IsZero() {
				refused = time.Now()
				log("broker %s: %s refused; trying again for %v (a worker added just now is let in within a second)", url, auth.source(), authGrace)
			} else if time.Since(refused) > authGrace {
				return nil, fmt.Errorf("broker %s: %w, %s, for %v: %v", url, ErrAuth, auth.source(), authGrace, err)
			}
			select {
			case <-ctx.Done():
				return nil, fmt.Errorf("broker %s: %w, %s: %v", url, ErrAuth, auth.source(), err)
			case <-time.After(250 * time.Millisecond):
			}
			continue
		}
		if strings.Contains(err.Error(), "tls") || strings.Contains(err.Error(), "x509") {
			return nil, fmt.Errorf("broker %s: TLS: %v", url, err)
		}
		if attempt == 0 {
			log("broker %s: %v; trying again every second", url, err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("broker %s: %v", url, err)
		case <-time.After(time.Second):
		}
	}
}

// asyncErrors logs the errors the server reports on its own (a permission
// refused), each once in a row.
func asyncErrors(log func(string, ...any)) nats.ErrHandler {
	var mu sync.Mutex
	last := ""
	return func(_ *nats.Conn, _ *nats.Subscription, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err.Error() != last {
			last = err.Error()
			log("broker: %v", err)
		}
	}
}

// isAuthError reports whether err is the server refusing the credential.
func isAuthError(err error) bool {
	return errors.Is(err, nats.ErrAuthorization) || errors.Is(err, nats.ErrAuthExpired) || errors.Is(err, nats.ErrAuthRevoked) ||
		strings.Contains(strings.ToLower(err.Error()), "authorization")
}

// digest returns "sha256:" and the hex SHA-256 of data.
func digest(data []byte) string {
	s := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(s[:])
}

// msgID is the deduplication id of a chunk: its name and a digest prefix.
func msgID(name string, data []byte) string { return name + "/" + digest(data)[7:23] }

// setup creates (or finds) the run's buckets and stream, with the limits
// on what workers can put there (chunkStreamConfig) for a trainer whose
// generations take want games.
func setup(ctx context.Context, js jetstream.JetStream, want int) (jetstream.KeyValue, jetstream.ObjectStore, jetstream.Stream, error) {
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: runBucket, Description: "dama training run: config, best model pointer, worker chunk numbers",
		History: 1, Storage: jetstream.FileStorage, MaxValueSize: maxValueBytes,
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("broker: key-value bucket %s: %w", runBucket, err)
	}
	obs, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
		Bucket: modelBucket, Description: "dama training run: accepted models", Storage: jetstream.FileStorage,
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("broker: object store %s: %w", modelBucket, err)
	}
	cur, err := js.Stream(ctx, ChunkStream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		cur, err = nil, nil
	}
	var cfg jetstream.StreamConfig
	if err == nil {
		cfg, err = chunkStreamConfig(ctx, cur, want)
	}
	var st jetstream.Stream
	if err == nil {
		st, err = js.CreateOrUpdateStream(ctx, cfg)
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("broker: stream %s: %w", ChunkStream, err)
	}
	return kv, obs, st, nil
}
