// Package tokenfile reads the secret tokens that the broker and the web
// view take from files: one token on one line, in a file that others
// cannot read.
package tokenfile

import (
	"fmt"
	"os"
	"strings"
)

// Read reads the token file at path: one token (no spaces), in a file
// whose mode gives others no access.
func Read(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("token file %s is readable by others (mode %v); chmod 600 it", path, st.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" || strings.ContainsAny(tok, " \t\n") {
		return "", fmt.Errorf("token file %s does not hold one token", path)
	}
	return tok, nil
}
