package broker

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

// configSigKey is the key, next to configKey, of the trainer's signature of
// the run's configuration: JSON configSignature.
const configSigKey = "config.sig"

// configSignature is the value of configSigKey.
type configSignature struct {
	Version   int    `json:"version"`
	Digest    string `json:"digest"`    // of the configuration's bytes, "sha256:" and hex
	Signature string `json:"signature"` // base64 ed25519 of configMessage
}

// The signed messages name what they are for, so that a signature of one
// kind is never taken for another.
func modelMessage(name, digest string) []byte {
	return []byte("dama best model v1\n" + name + "\n" + digest)
}

func configMessage(digest string) []byte { return []byte("dama run config v1\n" + digest) }

func sign(key ed25519.PrivateKey, msg []byte) string {
	return base64.StdEncoding.EncodeToString(ed25519.Sign(key, msg))
}

func verify(pub ed25519.PublicKey, msg []byte, sig string) error {
	if sig == "" {
		return errors.New("it is not signed")
	}
	b, err := base64.StdEncoding.DecodeString(sig)
	if err != nil || !ed25519.Verify(pub, msg, b) {
		return errors.New("its signature does not verify with the trainer's key")
	}
	return nil
}

// signBest returns the pointer to the model name with bytes data, signed.
func signBest(key ed25519.PrivateKey, name string, data []byte) bestPointer {
	d := digest(data)
	return bestPointer{Version: protocolVersion, Name: name, Digest: d, Size: len(data), Signature: sign(key, modelMessage(name, d))}
}

// verifyBest checks a pointer's signature.
func verifyBest(pub ed25519.PublicKey, p *bestPointer) error {
	return verify(pub, modelMessage(p.Name, p.Digest), p.Signature)
}

// signConfig returns the value of configSigKey for the configuration cfg.
func signConfig(key ed25519.PrivateKey, cfg []byte) []byte {
	d := digest(cfg)
	b, _ := json.Marshal(configSignature{Version: protocolVersion, Digest: d, Signature: sign(key, configMessage(d))})
	return b
}

// verifyConfig checks cfg against the value of configSigKey.
func verifyConfig(pub ed25519.PublicKey, cfg, sigValue []byte) error {
	var s configSignature
	if err := json.Unmarshal(sigValue, &s); err != nil {
		return fmt.Errorf("the configuration's signature is unreadable: %v", err)
	}
	if d := digest(cfg); s.Digest != d {
		return fmt.Errorf("the configuration's digest is %s, its signature is for %s", d, s.Digest)
	}
	if err := verify(pub, configMessage(s.Digest), s.Signature); err != nil {
		return fmt.Errorf("the configuration: %v", err)
	}
	return nil
}
