package scenarios

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/embedetcd"
)

// electionTimeout bounds the wait for the etcd members to elect a
// leader after one stopped (etcd's election timeout is one second; a
// loaded machine may need a few rounds).
const electionTimeout = 30 * time.Second

// EtcdMemberAction is etcdMembers (show the members), stopEtcdMember or
// killEtcdMember (of a name, or "leader": the raft leader then; a clean
// stop, whose leader hands its leadership over first, or a crash) or
// restartEtcdMember (of a name, or "stopped": the one this run stopped
// or killed last), on the etcd cluster of a scenario with cluster
// topology ha.
type EtcdMemberAction struct {
	// Verb is "etcdMembers", "stopEtcdMember", "killEtcdMember" or
	// "restartEtcdMember".
	Verb   string
	Member string
}

var _ actionRunner = (*EtcdMemberAction)(nil)

func (a *EtcdMemberAction) Kind() string { return a.Verb }
func (a *EtcdMemberAction) String() string {
	if a.Member == "" {
		return a.Verb
	}
	return a.Verb + " " + a.Member
}

// parseEtcdMember reads `true` for etcdMembers and a member name (or
// leader, stopped) for the other two.
func parseEtcdMember(_ *loader, key string, n *yaml.Node) (actionRunner, error) {
	if key == "etcdMembers" {
		if err := mustBeTrue(n); err != nil {
			return nil, err
		}
		return &EtcdMemberAction{Verb: key}, nil
	}
	name, err := decodeAs[str](n)
	if err != nil {
		return nil, err
	}
	return &EtcdMemberAction{Verb: key, Member: string(name)}, nil
}

// run does the action and shows the members as they are afterwards.
func (a *EtcdMemberAction) run(ctx context.Context, p *player, _ string) (StepResult, error) {
	ha := cluster.HAOf(p.cluster)
	if ha == nil {
		return StepResult{}, fmt.Errorf("%s: the scenario's cluster has no etcd cluster of its own (cluster: topology: ha)", a.Verb)
	}
	var res StepResult
	var err error
	switch a.Verb {
	case "stopEtcdMember", "killEtcdMember":
		res.Message, err = a.stop(ctx, p, ha)
	case "restartEtcdMember":
		res.Message, err = a.restart(ctx, p, ha)
	}
	if err != nil {
		return res, err
	}
	members, err := ha.EtcdStatus(ctx)
	if err != nil {
		return res, err
	}
	if a.Verb == "etcdMembers" {
		res.Message = describeLeader(members)
	}
	var table bytes.Buffer
	if err := embedetcd.WriteMemberTable(&table, members); err != nil {
		return res, err
	}
	for _, line := range strings.Split(strings.TrimRight(table.String(), "\n"), "\n") {
		addTranscript(&res, "%s", line)
	}
	res.Evidence = members
	return res, nil
}

// describeLeader says which member leads, in which term.
func describeLeader(members []embedetcd.MemberStatus) string {
	l, ok := embedetcd.LeaderOf(members)
	if !ok {
		return "no member leads"
	}
	return fmt.Sprintf("%s leads in raft term %d", l.Name, l.RaftTerm)
}

// stop stops or kills the member (the leader, for "leader") and waits
// until the others have elected a leader, when they can.
func (a *EtcdMemberAction) stop(ctx context.Context, p *player, ha *cluster.HA) (string, error) {
	before, err := ha.EtcdStatus(ctx)
	if err != nil {
		return "", err
	}
	name := a.Member
	if name == "leader" {
		l, ok := embedetcd.LeaderOf(before)
		if !ok {
			return "", fmt.Errorf("stopEtcdMember leader: no member leads now")
		}
		name = l.Name
	}
	halt, verb := ha.Etcd.Stop, "stopped"
	if a.Verb == "killEtcdMember" {
		halt, verb = ha.Etcd.Kill, "killed"
	}
	if err := halt(name); err != nil {
		return "", err
	}
	p.mu.Lock()
	p.stoppedEtcd = name
	p.mu.Unlock()
	was := fmt.Sprintf("%s %s", verb, name)
	if l, ok := embedetcd.LeaderOf(before); ok && l.Name == name {
		was += fmt.Sprintf(", the leader of raft term %d", l.RaftTerm)
	}
	leader, err := waitEtcdLeader(ctx, ha, name)
	if err != nil {
		return was + "; " + err.Error(), nil
	}
	return was + "; " + leader, nil
}

// waitEtcdLeader waits until a member other than not leads, and says
// which, in which term; without a quorum none will, which it says too.
func waitEtcdLeader(ctx context.Context, ha *cluster.HA, not string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, electionTimeout)
	defer cancel()
	for {
		members, err := ha.EtcdStatus(ctx)
		if err == nil {
			if l, ok := embedetcd.LeaderOf(members); ok && l.Name != not {
				return describeLeader(members), nil
			}
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("no member leads after %s (a quorum is a majority of the members)", electionTimeout)
		case <-time.After(pollInterval):
		}
	}
}

// restart starts the member again and says who leads then.
func (a *EtcdMemberAction) restart(ctx context.Context, p *player, ha *cluster.HA) (string, error) {
	name := a.Member
	if name == "stopped" {
		p.mu.Lock()
		name = p.stoppedEtcd
		p.mu.Unlock()
		if name == "" {
			return "", fmt.Errorf("restartEtcdMember stopped: this run stopped no member")
		}
	}
	if err := ha.Etcd.Restart(ctx, name); err != nil {
		return "", err
	}
	leader, err := waitEtcdLeader(ctx, ha, "")
	if err != nil {
		return "restarted " + name + "; " + err.Error(), nil
	}
	return "restarted " + name + "; " + leader, nil
}
