package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/embedetcd"
	"github.com/kubesim/kubesim/internal/pki"
)

// TestEtcdMembers: kubesim etcd members lists three members with one
// raft leader; once the leader stops, it lists the stopped member with
// the refused connection, and another member leads in a later term.
func TestEtcdMembers(t *testing.T) {
	pkiDir, members := startThreeMembers(t)
	endpoints := []string{members[0].ClientURLs()[0], members[1].ClientURLs()[0], members[2].ClientURLs()[0]}

	rows := waitForLeaderRow(t, pkiDir, endpoints, "")
	leaderName, term := rows[0], rows[1]
	var leader *embedetcd.Member
	for _, m := range members {
		if m.Name() == leaderName {
			leader = m
		}
	}
	if leader == nil || !leader.IsLeader() {
		t.Fatalf("the table names %s leader; the members say otherwise", leaderName)
	}
	leader.Close()
	rows = waitForLeaderRow(t, pkiDir, endpoints, leaderName)
	if newTerm, _ := strconv.Atoi(rows[1]); newTerm <= mustAtoi(t, term) {
		t.Errorf("new leader %s in term %s, want a term after %s", rows[0], rows[1], term)
	}
	out := membersOutput(t, pkiDir, endpoints)
	if want := leaderName + " did not answer: dial tcp"; !strings.Contains(out, want) || !strings.Contains(out, "connection refused") {
		t.Errorf("output does not say %q ... connection refused:\n%s", want, out)
	}
}

// leaderRow matches a table row of the leader: name, ID, "*", term.
var leaderRow = regexp.MustCompile(`(?m)^(m\d)\s+[0-9a-f]+\s+\*\s+(\d+)\s`)

// waitForLeaderRow runs the command until its table has a leader other
// than notName, and returns the leader's name and term.
func waitForLeaderRow(t *testing.T, pkiDir string, endpoints []string, notName string) []string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var out string
	for time.Now().Before(deadline) {
		out = membersOutput(t, pkiDir, endpoints)
		if m := leaderRow.FindStringSubmatch(out); m != nil && m[1] != notName && strings.Count(out, "\n") >= 4 {
			return m[1:]
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no leader other than %q in:\n%s", notName, out)
	return nil
}

func membersOutput(t *testing.T, pkiDir string, endpoints []string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := listEtcdMembers(context.Background(), endpoints, pkiDir, &buf); err != nil {
		t.Fatalf("kubesim etcd members: %v", err)
	}
	return buf.String()
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// startThreeMembers starts a new three-member cluster on loopback with
// the certificates of kubesim etcd certs, stopped when the test ends.
func startThreeMembers(t *testing.T) (string, []*embedetcd.Member) {
	t.Helper()
	dir := t.TempDir()
	pcfg := pki.NewConfig("")
	pcfg.Dir = filepath.Join(dir, "pki")
	files, err := pki.CreateEtcdPKI(pcfg)
	if err != nil {
		t.Fatal(err)
	}
	cfgs := make([]*embedetcd.MemberConfig, 3)
	var initial []string
	for i := range cfgs {
		name := fmt.Sprintf("m%d", i+1)
		cfg := embedetcd.NewMemberConfig(name, filepath.Join(dir, name))
		cfg.UnsafeNoFsync = true
		cfg.ListenClientURLs = []url.URL{{Scheme: "https", Host: loopbackAddr(t)}}
		cfg.ListenPeerURLs = []url.URL{{Scheme: "https", Host: loopbackAddr(t)}}
		cfg.TLS = embedetcd.MemberTLS{CAFile: files.CACert, ServerCert: files.ServerCert, ServerKey: files.ServerKey, PeerCert: files.PeerCert, PeerKey: files.PeerKey}
		initial = append(initial, name+"="+cfg.ListenPeerURLs[0].String())
		cfgs[i] = cfg
	}
	members := make([]*embedetcd.Member, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i, cfg := range cfgs {
		cfg.InitialCluster = strings.Join(initial, ",")
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			members[i], errs[i] = embedetcd.StartMember(ctx, cfg)
		}()
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, m := range members {
			if m != nil {
				m.Close()
			}
		}
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("start member m%d: %v", i+1, err)
		}
	}
	return files.Dir, members
}

func loopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
