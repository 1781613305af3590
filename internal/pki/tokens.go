package pki

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
)

// TokenBytes is how many random bytes a new token holds. It is encoded
// as unpadded base64url (43 characters), safe in an HTTP header and in CSV.
const TokenBytes = 32

// TokenEntry is one line of a token file: a bearer token and the identity
// it authenticates as.
type TokenEntry struct {
	Token  string
	User   string
	UID    string
	Groups []string
}

// TokenFile returns the path of the token file, for kube-apiserver's
// --token-auth-file or the API server's own token authenticator.
func (a *Authority) TokenFile() string { return a.path(TokenFileName) }

// Tokens returns a copy of every entry in the token file, in file order.
func (a *Authority) Tokens() []TokenEntry {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]TokenEntry, len(a.tokens))
	for i, e := range a.tokens {
		e.Groups = slices.Clone(e.Groups)
		out[i] = e
	}
	return out
}

// Token returns the bearer token of id.User. The first call for a user
// makes a token of TokenBytes random bytes and appends a line to the token
// file (rewritten whole, atomically, mode 0600); later calls, in this
// process or after a restart, return the same token. If id asks for other
// groups than the file has, the line's groups are updated and the token
// kept. A new line's uid is the user name.
func (a *Authority) Token(id Identity) (string, error) {
	if err := id.validate(); err != nil {
		return "", err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if i := slices.IndexFunc(a.tokens, func(e TokenEntry) bool { return e.User == id.User }); i >= 0 && sameGroups(a.tokens[i].Groups, id.Groups) {
		return a.tokens[i].Token, nil
	}
	unlock, err := lockDir(a.cfg.Dir)
	if err != nil {
		return "", err
	}
	defer unlock()
	return a.tokenLocked(id)
}

// tokenLocked is Token once a.mu and the directory's lock are held: it
// reads the token file again (another process sharing the directory may
// have added lines since), then adds or updates id's line.
func (a *Authority) tokenLocked(id Identity) (string, error) {
	if err := a.loadTokens(); err != nil {
		return "", err
	}
	i := slices.IndexFunc(a.tokens, func(e TokenEntry) bool { return e.User == id.User })
	if i >= 0 && sameGroups(a.tokens[i].Groups, id.Groups) {
		return a.tokens[i].Token, nil
	}
	next := slices.Clone(a.tokens)
	if i >= 0 {
		old := next[i].Groups
		next[i].Groups = slices.Clone(id.Groups)
		if err := a.writeTokens(next); err != nil {
			return "", err
		}
		a.cfg.logf("pki: token file: groups of %q changed from %q to %q", id.User, old, id.Groups)
		a.tokens = next
		return next[i].Token, nil
	}
	tok, err := newToken()
	if err != nil {
		return "", fmt.Errorf("pki: token for %q: %w", id.User, err)
	}
	next = append(next, TokenEntry{Token: tok, User: id.User, UID: id.User, Groups: slices.Clone(id.Groups)})
	if err := a.writeTokens(next); err != nil {
		return "", err
	}
	a.cfg.logf("pki: token file: added a token for %q", id.User)
	a.tokens = next
	return tok, nil
}

func newToken() (string, error) {
	b := make([]byte, TokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// loadTokens reads the token file if there is one.
func (a *Authority) loadTokens() error {
	path := a.TokenFile()
	data, err := readSecret(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pki: token file: %w", err)
	}
	entries, err := ParseTokenFile(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("pki: %s: %w", path, err)
	}
	for _, e := range entries {
		if len(e.Token) < base64.RawURLEncoding.EncodedLen(TokenBytes) {
			a.cfg.logf("pki: warning: %s: the token of %q is shorter than the %d random bytes kubesim makes", path, e.User, TokenBytes)
		}
	}
	a.tokens = entries
	return nil
}

func (a *Authority) writeTokens(entries []TokenEntry) error {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	for _, e := range entries {
		rec := []string{e.Token, e.User, e.UID}
		// No groups: leave the column out. kube-apiserver would read an
		// empty fourth column as one group named "".
		if len(e.Groups) > 0 {
			rec = append(rec, strings.Join(e.Groups, ","))
		}
		if err := w.Write(rec); err != nil {
			return fmt.Errorf("pki: token file: %w", err)
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return fmt.Errorf("pki: token file: %w", err)
	}
	if err := writeFileAtomic(a.TokenFile(), buf.Bytes(), secretMode); err != nil {
		return fmt.Errorf("pki: token file: %w", err)
	}
	return nil
}

// ParseTokenFile reads a token file in the format of kube-apiserver's
// --token-auth-file: CSV lines of token,user,uid and optionally a fourth
// column of comma-separated groups, quoted when there is more than one:
//
//	31ada4fd-adec-460c-809a-9e56ceb75269,alice,1001,"dev,ops"
//
// It is stricter than kube-apiserver, and says so with the line number: a
// line must have 3 or 4 fields (an unquoted list of groups makes more), the
// token and user must not be empty, the token must be printable ASCII
// without spaces (it travels in an Authorization header), no group may be
// empty, and neither a token nor a user may appear twice. Blank lines are
// skipped. An empty or missing group column means no groups.
func ParseTokenFile(r io.Reader) ([]TokenEntry, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	var entries []TokenEntry
	tokenLine := map[string]int{}
	userLine := map[string]int{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return entries, nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("line %d: %w", pe.Line, pe.Err)
			}
			return nil, err
		}
		line, _ := cr.FieldPos(0)
		switch {
		case len(rec) < 3:
			return nil, fmt.Errorf("line %d: %d fields, want token,user,uid and optionally groups", line, len(rec))
		case len(rec) > 4:
			return nil, fmt.Errorf("line %d: %d fields, want at most 4 (quote a list of groups: \"group1,group2\")", line, len(rec))
		case rec[0] == "":
			return nil, fmt.Errorf("line %d: empty token", line)
		case !headerSafe(rec[0]):
			return nil, fmt.Errorf("line %d: token has a character that cannot be sent in an Authorization header", line)
		case rec[1] == "":
			return nil, fmt.Errorf("line %d: empty user name", line)
		}
		if prev, ok := tokenLine[rec[0]]; ok {
			return nil, fmt.Errorf("line %d: the token of line %d again", line, prev)
		}
		if prev, ok := userLine[rec[1]]; ok {
			return nil, fmt.Errorf("line %d: user %q already has a token on line %d", line, rec[1], prev)
		}
		tokenLine[rec[0]], userLine[rec[1]] = line, line
		e := TokenEntry{Token: rec[0], User: rec[1], UID: rec[2]}
		if len(rec) == 4 && rec[3] != "" {
			e.Groups = strings.Split(rec[3], ",")
			if slices.Contains(e.Groups, "") {
				return nil, fmt.Errorf("line %d: empty group name in %q", line, rec[3])
			}
		}
		entries = append(entries, e)
	}
}

// headerSafe reports whether s is visible ASCII without spaces.
func headerSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}
