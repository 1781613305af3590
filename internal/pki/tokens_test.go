package pki_test

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/kubesim/kubesim/internal/pki"
)

func TestStandardTokens(t *testing.T) {
	a := mustLoad(t, testConfig(t, t.TempDir(), t0, nil))
	got := a.Tokens()
	want := []struct {
		user   string
		groups []string
	}{
		{"admin", []string{"system:masters"}},
		{"system:kube-scheduler", nil},
		{"student", nil},
	}
	if len(got) != len(want) {
		t.Fatalf("Tokens() has %d entries, want %d: %+v", len(got), len(want), got)
	}
	seen := map[string]bool{}
	for i, w := range want {
		e := got[i]
		if e.User != w.user || e.UID != w.user || !reflect.DeepEqual(e.Groups, w.groups) {
			t.Errorf("entry %d = %s/%s/%q, want user and uid %s, groups %q", i, e.User, e.UID, e.Groups, w.user, w.groups)
		}
		raw, err := base64.RawURLEncoding.DecodeString(e.Token)
		if err != nil {
			t.Errorf("token of %s is not unpadded base64url: %v", e.User, err)
		}
		if len(raw) < 32 {
			t.Errorf("token of %s has %d bytes, want at least 32", e.User, len(raw))
		}
		if seen[e.Token] {
			t.Errorf("token of %s repeats another", e.User)
		}
		seen[e.Token] = true
	}
}

func TestTokensDifferAcrossClusters(t *testing.T) {
	a := mustLoad(t, testConfig(t, t.TempDir(), t0, nil))
	b := mustLoad(t, testConfig(t, t.TempDir(), t0, nil))
	if mustToken(t, a, pki.Admin()) == mustToken(t, b, pki.Admin()) {
		t.Error("two clusters got the same admin token")
	}
}

func TestTokenFilePersistsAndParses(t *testing.T) {
	dataDir := t.TempDir()
	a := mustLoad(t, testConfig(t, dataDir, t0, nil))
	multi := pki.Identity{User: "alice", Groups: []string{"dev", "ops"}}
	nodeTok := mustToken(t, a, pki.Node("node-1"))
	aliceTok := mustToken(t, a, multi)
	if mustToken(t, a, pki.Node("node-1")) != nodeTok {
		t.Fatal("second Token call for the same node gave another token")
	}

	data := string(mustReadFile(t, a.TokenFile()))
	lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
	wantLines := []string{
		"," + "admin,admin,system:masters",
		",system:kube-scheduler,system:kube-scheduler",
		",student,student",
		",system:node:node-1,system:node:node-1,system:nodes",
		`,alice,alice,"dev,ops"`,
	}
	if len(lines) != len(wantLines) {
		t.Fatalf("token file has %d lines, want %d:\n%s", len(lines), len(wantLines), data)
	}
	for i, w := range wantLines {
		if !strings.HasSuffix(lines[i], w) {
			t.Errorf("line %d = %q, want it to end in %q", i+1, lines[i], w)
		}
	}
	if !strings.HasPrefix(lines[3], nodeTok+",") || !strings.HasPrefix(lines[4], aliceTok+",") {
		t.Error("new tokens are not the ones appended to the file")
	}

	f, err := os.Open(a.TokenFile())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	parsed, err := pki.ParseTokenFile(f)
	if err != nil {
		t.Fatalf("ParseTokenFile: %v", err)
	}
	if !reflect.DeepEqual(parsed, a.Tokens()) {
		t.Errorf("parsed file = %+v, want Tokens() = %+v", parsed, a.Tokens())
	}

	b := mustLoad(t, testConfig(t, dataDir, t0, nil))
	if !reflect.DeepEqual(b.Tokens(), a.Tokens()) {
		t.Errorf("after restart Tokens() = %+v, want %+v", b.Tokens(), a.Tokens())
	}
}

func TestTokenGroupsChange(t *testing.T) {
	dataDir := t.TempDir()
	a := mustLoad(t, testConfig(t, dataDir, t0, nil))
	tok := mustToken(t, a, pki.Identity{User: "bob", Groups: []string{"dev"}})
	if got := mustToken(t, a, pki.Identity{User: "bob", Groups: []string{"dev", "ops"}}); got != tok {
		t.Errorf("token changed with the groups")
	}
	b := mustLoad(t, testConfig(t, dataDir, t0, nil))
	got := b.Tokens()
	last := got[len(got)-1]
	if last.User != "bob" || !reflect.DeepEqual(last.Groups, []string{"dev", "ops"}) {
		t.Errorf("last entry after restart = %+v, want bob in dev and ops", last)
	}
}

func TestTokensReturnsCopy(t *testing.T) {
	a := mustLoad(t, testConfig(t, t.TempDir(), t0, nil))
	a.Tokens()[0].Groups[0] = "changed"
	if got := a.Tokens()[0].Groups[0]; got != "system:masters" {
		t.Errorf("changing the result of Tokens changed the Authority: %q", got)
	}
}

func TestParseTokenFile(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []pki.TokenEntry
		wantErr string
	}{
		{
			name: "three and four fields",
			in:   "tok1,alice,1001\ntok2,bob,1002,\"dev,ops\"\ntok3,carol,,solo\n",
			want: []pki.TokenEntry{
				{Token: "tok1", User: "alice", UID: "1001"},
				{Token: "tok2", User: "bob", UID: "1002", Groups: []string{"dev", "ops"}},
				{Token: "tok3", User: "carol", UID: "", Groups: []string{"solo"}},
			},
		},
		{
			name: "blank lines and an empty group column",
			in:   "\ntok1,alice,1001,\n\n",
			want: []pki.TokenEntry{{Token: "tok1", User: "alice", UID: "1001"}},
		},
		{name: "empty file", in: "", want: nil},
		{name: "too few fields", in: "tok1,alice,1\ntok2,bob\n", wantErr: "line 2: 2 fields"},
		{name: "unquoted groups", in: "tok1,alice,1\n\ntok2,bob,2,dev,ops\n", wantErr: "line 3: 5 fields"},
		{name: "empty token", in: ",alice,1\n", wantErr: "line 1: empty token"},
		{name: "token with a space", in: "a b,alice,1\n", wantErr: "line 1: token has a character"},
		{name: "empty user", in: "tok1,,1\n", wantErr: "line 1: empty user"},
		{name: "duplicate token", in: "tok1,alice,1\ntok1,bob,2\n", wantErr: "line 2: the token of line 1 again"},
		{name: "duplicate user", in: "tok1,alice,1\ntok2,bob,2\ntok3,alice,3\n", wantErr: `line 3: user "alice" already has a token on line 1`},
		{name: "empty group", in: "tok1,alice,1,\"dev,,ops\"\n", wantErr: "line 1: empty group name"},
		{name: "unterminated quote", in: "tok1,alice,1\ntok2,bob,2,\"dev\n", wantErr: "line 2: extraneous or missing \""},
		{name: "bad quote in a field spanning lines", in: "tok1,alice,1,\"a\nb\"c\n", wantErr: "line 2: extraneous or missing \""},
		{name: "line after a quoted field spanning lines", in: "tok1,alice,1,\"a\nb\"\ntok2,bob\n", wantErr: "line 3: 2 fields"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pki.ParseTokenFile(strings.NewReader(tt.in))
			if tt.wantErr != "" {
				wantErrContaining(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatalf("ParseTokenFile: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestBadTokenFileRefused(t *testing.T) {
	dataDir := t.TempDir()
	a := mustLoad(t, testConfig(t, dataDir, t0, nil))
	if err := os.WriteFile(a.TokenFile(), []byte("tok,admin,admin\ntok,student,student\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := pki.Load(testConfig(t, dataDir, t0, nil))
	wantErrContaining(t, err, "tokens.csv: line 2")
	if errors.Is(err, pki.ErrInsecurePermissions) {
		t.Error("a parse error reported as a permission problem")
	}
}

func TestConcurrentIssue(t *testing.T) {
	a := mustLoad(t, testConfig(t, t.TempDir(), t0, nil))
	const n = 8
	errs := make(chan error, 2*n)
	var wg sync.WaitGroup
	for i := range n {
		id := pki.Node(fmt.Sprintf("node-%d", i%4))
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, err := a.Token(id)
			errs <- err
		}()
		go func() {
			defer wg.Done()
			_, _, err := a.ClientCert(id)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got, want := len(a.Tokens()), 3+4; got != want {
		t.Errorf("%d tokens, want %d (one per identity)", got, want)
	}
}
