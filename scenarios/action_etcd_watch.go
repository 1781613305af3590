package scenarios

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
	yaml "go.yaml.in/yaml/v3"
)

// EtcdWatchAction watches etcd itself, behind the API server's back, as
// `etcdctl watch --rev=N [--prefix] KEY` does: etcd replays its own
// history from revision N (until that is compacted), whatever the API
// server's watch cache still holds. It reads Count events.
type EtcdWatchAction struct {
	Key    string
	Prefix bool
	// FromRevision is the first revision to replay; or, if it is 0,
	// FromResourceVersionOf names a resourceVersion (the watch starts
	// at that revision, so the write that made it is the first event).
	FromRevision          int64
	FromResourceVersionOf *ResourceVersionRef
	Count                 int
}

var _ actionRunner = (*EtcdWatchAction)(nil)

// etcdWatchDoc is etcdWatch as written.
type etcdWatchDoc struct {
	Key                   str      `yaml:"key" load:"required"`
	Prefix                *boolean `yaml:"prefix"`
	FromRevision          *integer `yaml:"fromRevision"`
	FromResourceVersionOf *rvOfDoc `yaml:"fromResourceVersionOf"`
	Count                 *integer `yaml:"count"`
}

func (a *EtcdWatchAction) Kind() string { return "etcdWatch" }
func (a *EtcdWatchAction) String() string {
	from := strconv.FormatInt(a.FromRevision, 10)
	if r := a.FromResourceVersionOf; r != nil {
		from = fmt.Sprintf("the %s resourceVersion of %s", r.Version, r.Object)
	}
	prefix := ""
	if a.Prefix {
		prefix = " --prefix"
	}
	return fmt.Sprintf("etcdctl watch%s %s, from revision %s, %d events", prefix, a.Key, from, a.Count)
}

// parseEtcdWatch reads {key, prefix, fromRevision | fromResourceVersionOf,
// count}: key under /registry/, count 1 to 1000 (1 by default).
func parseEtcdWatch(l *loader, _ string, n *yaml.Node) (actionRunner, error) {
	var d etcdWatchDoc
	if err := decode(n, &d); err != nil {
		return nil, err
	}
	a := &EtcdWatchAction{Key: string(d.Key), Prefix: d.Prefix.or(false), Count: 1}
	if !strings.HasPrefix(a.Key, "/registry/") {
		return nil, errAt(valueOf(n, "key"), "%q is not under /registry/, where the API server keeps its objects", a.Key)
	}
	if err := l.etcdWatchStart(n, d, a); err != nil {
		return nil, err
	}
	if c := d.Count; c != nil {
		if *c < 1 || *c > 1000 {
			return nil, errAt(valueOf(n, "count"), "%d: use 1 to 1000", *c)
		}
		a.Count = int(*c)
	}
	return a, nil
}

// etcdWatchStart sets where the watch a starts from, as d (read from n)
// says: exactly one of fromRevision (1 or more) and
// fromResourceVersionOf.
func (l *loader) etcdWatchStart(n *yaml.Node, d etcdWatchDoc, a *EtcdWatchAction) error {
	switch rev := d.FromRevision; {
	case (rev == nil) == (d.FromResourceVersionOf == nil):
		return errAt(n, "give exactly one of fromRevision and fromResourceVersionOf")
	case rev != nil:
		if *rev < 1 {
			return errAt(valueOf(n, "fromRevision"), "%d: revisions start at 1", *rev)
		}
		a.FromRevision = int64(*rev)
	default:
		ref, err := l.resourceVersionRef(valueOf(n, "fromResourceVersionOf"), *d.FromResourceVersionOf)
		if err != nil {
			return err
		}
		a.FromResourceVersionOf = ref
	}
	return nil
}

// run replays the key's history from etcd's own client of the embedded
// member: the transcript has the etcdctl command and one line per event;
// the result's watch events are PUT and DELETE.
func (a *EtcdWatchAction) run(ctx context.Context, p *player, _ string) (StepResult, error) {
	rev := a.FromRevision
	if ref := a.FromResourceVersionOf; ref != nil {
		rv, err := p.resourceVersionOf(ctx, ref)
		if err != nil {
			return StepResult{}, err
		}
		if rev, err = strconv.ParseInt(rv, 10, 64); err != nil {
			return StepResult{}, fmt.Errorf("resourceVersion %q of %s is not an etcd revision", rv, ref.Object)
		}
	}
	var res StepResult
	logf := func(format string, args ...any) { addTranscript(&res, format, args...) }
	opts := []clientv3.OpOption{clientv3.WithRev(rev)}
	flag := ""
	if a.Prefix {
		opts, flag = append(opts, clientv3.WithPrefix()), " --prefix"
	}
	logf("$ etcdctl watch --rev=%d%s %s", rev, flag, a.Key)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for resp := range p.cluster.EtcdClient().Watch(wctx, a.Key, opts...) {
		if err := resp.Err(); err != nil {
			logf("! %v", err)
			res.Message = err.Error()
			return res, fmt.Errorf("etcd watch: %w", err)
		}
		for _, ev := range resp.Events {
			res.Watch = append(res.Watch, ev.Type.String())
			logf("%s", describeEtcdEvent(ev))
			if len(res.Watch) == a.Count {
				logf("(%d events read: the watch is cancelled)", a.Count)
				return res, nil
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	return res, errors.New("etcd watch: the watch channel closed")
}

// describeEtcdEvent is one event as a line: type, key, its revision, and
// for a put the key's create revision, version and value size.
func describeEtcdEvent(ev *clientv3.Event) string {
	kv := ev.Kv
	if ev.Type == clientv3.EventTypeDelete {
		return fmt.Sprintf("DELETE %s  revision %d", kv.Key, kv.ModRevision)
	}
	return fmt.Sprintf("PUT %s  revision %d (create revision %d, version %d of the key, %d bytes)", kv.Key, kv.ModRevision, kv.CreateRevision, kv.Version, len(kv.Value))
}
