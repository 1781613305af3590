package scenarios

import (
	"context"
	"fmt"
	"net/url"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// WatchCompareAction follows one object with three clients at once, over
// HTTPS with HTTP/1.1, while a writer in the same action changes it
// Changes times, Spacing apart (a merge patch of its label
// CompareLabel), as the step's user:
//
//   - poll GETs the object, then again every PollInterval, until it has
//     the writer's last change;
//   - longpoll GETs it once for its resourceVersion, then, round after
//     round, sends a watch from the last resourceVersion it has and closes
//     it after the first event. Kubernetes has no long-poll endpoint: a
//     watch the client closes after one event is how kubesim long-polls
//     it (the server holds the request until the next change, as a
//     long-poll server would);
//   - watch sends one watch request (no resourceVersion: the server starts
//     it with the current state, ADDED) and reads the stream until it has
//     every change.
//
// Nothing but the writer may change the object while the action runs (a
// Lease or a Role the scenario made, not a Pod or a Node): a state that
// is none of the writer's fails the step. The writer starts once every client has a first state. Each client has
// its own transport (keep-alive connections, one at a time), which counts
// the connections it dials and the bytes read and written on them, both
// as HTTP (after TLS decryption) and on the TCP connection (TLS records
// and handshakes included). The step's result has the scoreboard as its
// transcript and a *WatchCompareEvidence as its Evidence.
type WatchCompareAction struct {
	Object  ObjectSpec
	Changes int
	// Spacing is the pause before each change, PollInterval the pause
	// between two polls (see minPollInterval), both in real time whatever
	// the player's speed: at speed 0 the changes would come back to back
	// and a poller every few milliseconds would see each of them, so the
	// comparison's point (polls are late or wasted) would not show.
	Spacing, PollInterval time.Duration
}

var _ actionRunner = (*WatchCompareAction)(nil)

// The defaults and bounds of watchCompare's fields.
const (
	DefaultCompareChanges      = 5
	DefaultCompareSpacing      = time.Second
	DefaultComparePollInterval = 2 * time.Second
	maxCompareChanges          = 100
	// CompareLabel is the label the writer sets to the change's number.
	CompareLabel = "kubesim.io/change"
	// minPollInterval is the least pause between two polls: with a
	// pollInterval of 0 the poller does not spin.
	minPollInterval = 10 * time.Millisecond
)

// watchCompareDoc is watchCompare as written.
type watchCompareDoc struct {
	objectDoc    `yaml:",inline"`
	Changes      *integer  `yaml:"changes"`
	Spacing      *duration `yaml:"spacing"`
	PollInterval *duration `yaml:"pollInterval"`
}

func (a *WatchCompareAction) Kind() string { return "watchCompare" }
func (a *WatchCompareAction) String() string {
	return fmt.Sprintf("watchCompare %s: poll every %s, long-poll and watch, while %d changes are made %s apart",
		a.Object, a.PollInterval, a.Changes, a.Spacing)
}

// parseWatchCompare reads {kind, name, namespace, changes, spacing,
// pollInterval}: the object as patch names it; changes
// DefaultCompareChanges (1 to maxCompareChanges), spacing and
// pollInterval their defaults unless given.
func parseWatchCompare(l *loader, _ string, n *yaml.Node) (actionRunner, error) {
	var d watchCompareDoc
	if err := decode(n, &d); err != nil {
		return nil, err
	}
	a := &WatchCompareAction{Changes: DefaultCompareChanges, Spacing: DefaultCompareSpacing, PollInterval: DefaultComparePollInterval}
	var err error
	if a.Object, err = l.objectRef(n, d.objectDoc); err != nil {
		return nil, err
	}
	if c := d.Changes; c != nil {
		if *c < 1 || *c > maxCompareChanges {
			return nil, errAt(valueOf(n, "changes"), "%d: use 1 to %d", *c, maxCompareChanges)
		}
		a.Changes = int(*c)
	}
	if d.Spacing != nil {
		a.Spacing = time.Duration(*d.Spacing)
	}
	if d.PollInterval != nil {
		a.PollInterval = time.Duration(*d.PollInterval)
	}
	return a, nil
}

// comparePaths are the URL paths a comparison's clients use: the
// object's, which poll GETs, and its collection's, which the watches use.
type comparePaths struct {
	object, collection, name string
}

// pathsOf returns the paths of o, a kind the scenario knows.
func (p *player) pathsOf(o ObjectSpec) comparePaths {
	info, ok := kinds[o.Kind]
	if !ok {
		info, _ = p.customKind(o.Kind)
	}
	gv := info.gvr.GroupVersion()
	c := "/apis/" + gv.String()
	if gv.Group == "" {
		c = "/api/" + gv.Version
	}
	if info.namespaced {
		c += "/namespaces/" + o.Namespace
	}
	c += "/" + info.gvr.Resource
	return comparePaths{object: c + "/" + o.Name, collection: c, name: o.Name}
}

// watch is a watch of the object alone (a field selector on its name),
// from resourceVersion rv ("": from the current state).
func (cp comparePaths) watch(rv string) string {
	q := url.Values{"watch": {"1"}, "fieldSelector": {"metadata.name=" + cp.name}}
	if rv != "" {
		q.Set("resourceVersion", rv)
	}
	return cp.collection + "?" + q.Encode()
}

// run plays the comparison as user and scores it.
func (a *WatchCompareAction) run(ctx context.Context, p *player, user string) (StepResult, error) {
	hc, err := p.httpClientAs(user)
	if err != nil {
		return StepResult{}, err
	}
	w, err := p.resource(a.Object, user)
	if err != nil {
		return StepResult{}, err
	}
	c := newComparison(a, p, hc, w, p.pathsOf(a.Object))
	if err := c.run(ctx); err != nil {
		return StepResult{}, err
	}
	ev, err := c.score()
	if err != nil {
		return StepResult{}, err
	}
	res := StepResult{Status: 200, Evidence: ev}
	writeScoreboard(&res, c, ev)
	res.Message = fmt.Sprintf("%d changes followed by poll, long-poll and watch", a.Changes)
	return res, nil
}
