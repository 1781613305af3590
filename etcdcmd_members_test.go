package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/etcdtest"
)

// TestEtcdMembers: kubesim etcd members lists three members with one
// raft leader; once the leader stops, it lists the stopped member with
// the refused connection, and another member leads in a later term.
func TestEtcdMembers(t *testing.T) {
	lc, pkiDir := etcdtest.StartCluster(t, 3)
	endpoints := lc.Endpoints()

	rows := waitForLeaderRow(t, pkiDir, endpoints, "")
	leaderName, term := rows[0], rows[1]
	if got := lc.Leader(); got != leaderName {
		t.Fatalf("the table names %s leader; the members say %q", leaderName, got)
	}
	if err := lc.Stop(leaderName); err != nil {
		t.Fatal(err)
	}
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
	deadline := time.Now().Add(waitTimeout)
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
