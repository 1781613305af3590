package embedetcd

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// MemberStatus is one member of an etcd cluster as etcdctl shows it with
// "member list" (name, URLs, learner) and "endpoint status" (version, db
// size, leader, raft term and indexes), asked of the member itself.
type MemberStatus struct {
	ID         uint64
	Name       string
	PeerURLs   []string
	ClientURLs []string
	IsLearner  bool
	// Endpoint is the client URL the status was asked at; Err says why
	// none answered (a stopped member), and then the fields below are
	// zero.
	Endpoint         string
	Err              error
	Version          string
	DBSize           int64 // bytes, including free pages
	DBSizeInUse      int64 // bytes in use (after compaction, before defrag)
	IsLeader         bool  // the member reports itself the raft leader
	Leader           uint64
	RaftTerm         uint64
	RaftIndex        uint64
	RaftAppliedIndex uint64
}

// ClusterStatus lists the members of the cluster client is connected to
// (MemberList, serializable: the member asked answers from its own
// state, so the list is there with quorum lost too, as etcdctl's
// --consistency=s) and asks each member's first answering client URL
// for its Maintenance Status, each call bounded by perMember. Members come
// sorted by name. A member that does not answer has Err set; the call
// fails only when the member list itself cannot be read.
func ClusterStatus(ctx context.Context, client *clientv3.Client, perMember time.Duration) ([]MemberStatus, error) {
	lctx, cancel := context.WithTimeout(ctx, perMember)
	list, err := client.MemberList(lctx, clientv3.WithSerializable())
	cancel()
	if err != nil {
		return nil, fmt.Errorf("etcd member list: %w", err)
	}
	out := make([]MemberStatus, len(list.Members))
	var wg sync.WaitGroup
	for i, m := range list.Members {
		out[i] = MemberStatus{ID: m.ID, Name: m.Name, PeerURLs: m.PeerURLs, ClientURLs: m.ClientURLs, IsLearner: m.IsLearner}
		wg.Add(1)
		go func(s *MemberStatus) {
			defer wg.Done()
			s.ask(ctx, client, perMember)
		}(&out[i])
	}
	wg.Wait()
	slices.SortFunc(out, func(a, b MemberStatus) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// ask fills s from the Status of the first of its client URLs that
// answers within perMember each.
func (s *MemberStatus) ask(ctx context.Context, client *clientv3.Client, perMember time.Duration) {
	if len(s.ClientURLs) == 0 {
		s.Err = fmt.Errorf("member %x has not started yet (no client URLs)", s.ID)
		return
	}
	for _, ep := range s.ClientURLs {
		sctx, cancel := context.WithTimeout(ctx, perMember)
		st, err := client.Status(sctx, ep)
		cancel()
		s.Endpoint = ep
		if err != nil {
			s.Err = explainUnanswered(ep, err)
			continue
		}
		s.Err = nil
		s.Version, s.DBSize, s.DBSizeInUse = st.Version, st.DbSize, st.DbSizeInUse
		s.Leader, s.IsLeader = st.Leader, st.Leader == st.Header.MemberId
		s.RaftTerm, s.RaftIndex, s.RaftAppliedIndex = st.RaftTerm, st.RaftIndex, st.RaftAppliedIndex
		return
	}
}

// explainUnanswered replaces gRPC's "context deadline exceeded" (its
// dial is lazy, so a stopped member only ever times out) by what a TCP
// connection to the endpoint meets, when that fails.
func explainUnanswered(endpoint string, err error) error {
	u, perr := url.Parse(endpoint)
	if perr != nil || u.Host == "" {
		return err
	}
	conn, derr := net.DialTimeout("tcp", u.Host, time.Second)
	if derr != nil {
		return derr
	}
	conn.Close()
	return err
}

// LeaderOf returns the member the answering members name as raft leader,
// and whether any answered.
func LeaderOf(members []MemberStatus) (MemberStatus, bool) {
	for _, m := range members {
		if m.Err == nil && m.IsLeader {
			return m, true
		}
	}
	return MemberStatus{}, false
}
