package storage

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
)

// continueToken is what a "continue" string carries: the revision the first
// page was read at and the key the next page starts from. The wire format
// (base64url of {"v":"meta.k8s.io/v1","rv":N,"start":"..."}) is the one
// kube-apiserver uses, so tokens look the same to clients.
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

const continueVersion = "meta.k8s.io/v1"

var errInvalidContinue = errors.New("continue key is not valid")

// encodeContinue makes the token for a page that starts at key, a key below
// prefix. rv -1 means "continue at the latest revision".
func encodeContinue(key, prefix string, rv int64) (string, error) {
	rel, ok := strings.CutPrefix(key, prefix)
	if !ok {
		return "", fmt.Errorf("continue: key %q is not under %q", key, prefix)
	}
	b, err := json.Marshal(continueToken{APIVersion: continueVersion, ResourceVersion: rv, StartKey: rel})
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// decodeContinue returns the absolute start key and the revision of a
// token. The start key is cleaned so that a crafted token can never reach
// outside prefix.
func decodeContinue(token, prefix string) (string, int64, error) {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return "", 0, fmt.Errorf("%w: %v", errInvalidContinue, err)
	}
	var c continueToken
	if err := json.Unmarshal(b, &c); err != nil {
		return "", 0, fmt.Errorf("%w: %v", errInvalidContinue, err)
	}
	if c.APIVersion != continueVersion {
		return "", 0, fmt.Errorf("%w: server does not recognize this encoded version %q", errInvalidContinue, c.APIVersion)
	}
	if c.ResourceVersion == 0 {
		return "", 0, fmt.Errorf("%w: incorrect encoded start resourceVersion (version %s)", errInvalidContinue, continueVersion)
	}
	if c.StartKey == "" {
		return "", 0, fmt.Errorf("%w: encoded start key empty (version %s)", errInvalidContinue, continueVersion)
	}
	k := c.StartKey
	if !strings.HasPrefix(k, "/") {
		k = "/" + k
	}
	if path.Clean(k) != k {
		return "", 0, fmt.Errorf("%w: %s", errInvalidContinue, c.StartKey)
	}
	return prefix + k[1:], c.ResourceVersion, nil
}
