package scenarios

import (
	"context"
	"fmt"
	"net/url"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubesim/kubesim/internal/flow"
)

// SlowWatchAction watches one Lease over a raw HTTP/2 connection and
// stops reading, while a writer in the same action patches it Changes
// times: the client advertises SETTINGS_INITIAL_WINDOW_SIZE Window and
// sends no WINDOW_UPDATE, so the API server can send Window bytes of the
// stream and then its watch handler blocks; the watch cache's buffers for
// the watcher fill and it drops the watcher. The client then reads again
// (gives the window back) until the stream ends, and watches again, on a
// new stream, from the last resourceVersion it read, until it has every
// change. The step's Evidence is a *SlowWatchEvidence.
type SlowWatchAction struct {
	Namespace, Lease string
	Changes          int
	Window           uint32
}

var _ actionRunner = (*SlowWatchAction)(nil)

// The defaults and bounds of slowWatch's fields.
const (
	// DefaultSlowChanges is enough to fill a watcher's two buffers of 10
	// (the watch cache's default) and what the handler holds.
	DefaultSlowChanges = 50
	maxSlowChanges     = 90 // fewer than the cache's smallest history (100)
	// DefaultSlowWindow is the bytes of each stream the client takes
	// before it must give window back: a couple of events.
	DefaultSlowWindow = 1024
	maxSlowWindow     = 65535
)

// slowWatchDoc is slowWatch as written.
type slowWatchDoc struct {
	Lease     objectName  `yaml:"lease" load:"required"`
	Namespace *objectName `yaml:"namespace"`
	Changes   *integer    `yaml:"changes"`
	Window    *integer    `yaml:"window"`
}

func (a *SlowWatchAction) Kind() string { return "slowWatch" }
func (a *SlowWatchAction) String() string {
	return fmt.Sprintf("slowWatch Lease %s/%s: a watch that stops reading (HTTP/2 window %d bytes) while %d changes are made, then the re-watch",
		a.Namespace, a.Lease, a.Window, a.Changes)
}

// parseSlowWatch reads {lease, namespace, changes, window}: lease
// is required; namespace is default, changes DefaultSlowChanges (1 to
// maxSlowChanges), window DefaultSlowWindow (1 to 65535 bytes).
func parseSlowWatch(_ *loader, _ string, n *yaml.Node) (actionRunner, error) {
	var d slowWatchDoc
	if err := decode(n, &d); err != nil {
		return nil, err
	}
	a := &SlowWatchAction{Lease: string(d.Lease), Namespace: "default", Changes: DefaultSlowChanges, Window: DefaultSlowWindow}
	if d.Namespace != nil {
		a.Namespace = string(*d.Namespace)
	}
	for _, b := range []struct {
		key      string
		v        *integer
		max      integer
		set      func(integer)
		unitHelp string
	}{
		{"changes", d.Changes, maxSlowChanges, func(v integer) { a.Changes = int(v) }, ""},
		{"window", d.Window, maxSlowWindow, func(v integer) { a.Window = uint32(v) }, " bytes"},
	} {
		if b.v == nil {
			continue
		}
		if *b.v < 1 || *b.v > b.max {
			return nil, errAt(valueOf(n, b.key), "%d: use 1 to %d%s", *b.v, b.max, b.unitHelp)
		}
		b.set(*b.v)
	}
	return a, nil
}

// watchPath is a watch of the Lease alone from resourceVersion rv.
func (a *SlowWatchAction) watchPath(rv string) string {
	q := url.Values{"watch": {"1"}, "fieldSelector": {"metadata.name=" + a.Lease}, "resourceVersion": {rv}}
	return fmt.Sprintf("/apis/coordination.k8s.io/v1/namespaces/%s/leases?%s", a.Namespace, q.Encode())
}

// SlowWatchEvidence is what a slowWatch run found, for its expectation
// and --json.
type SlowWatchEvidence struct {
	Lease string `json:"lease"`
	// Window is the SETTINGS_INITIAL_WINDOW_SIZE the client advertised.
	Window uint32 `json:"initialWindowSize"`
	// Written are the resourceVersions the writer's patches got back.
	Written []string `json:"written"`
	// First is the watch that stopped reading, Rewatch the one after it.
	First   SlowWatchStream `json:"first"`
	Rewatch SlowWatchStream `json:"rewatch"`
	// ReadWhileStalled counts the events of First that arrived within
	// the window, before the client read again; BytesWhileStalled their
	// bytes on the stream.
	ReadWhileStalled  int `json:"readWhileStalled"`
	BytesWhileStalled int `json:"bytesWhileStalled"`
	// Dropped says the API server's watch cache gave up on First; Server
	// has its figures then.
	Dropped bool                   `json:"dropped"`
	Server  *flow.WatchTermination `json:"server,omitempty"`
	// LastRead is the resourceVersion of the last event First delivered,
	// RewatchFrom the one Rewatch asked for.
	LastRead    string `json:"lastRead"`
	RewatchFrom string `json:"rewatchFrom"`
	// Missed are the written resourceVersions neither watch delivered,
	// Twice those delivered more than once.
	Missed []string `json:"missed"`
	Twice  []string `json:"twice"`
}

// SlowWatchStream is one watch of a slowWatch run.
type SlowWatchStream struct {
	Stream uint32 `json:"stream"`
	Path   string `json:"path"`
	Status int    `json:"status"`
	// Read are the resourceVersions of the events it delivered, in order.
	Read []string `json:"read"`
	// EndedBy is how the server ended it: "END_STREAM" (an empty DATA
	// frame or the last one flagged), or "" when the client reset it.
	EndedBy string `json:"endedBy,omitempty"`
	// Errors are the ERROR events it carried, as "code: message".
	Errors []string `json:"errors,omitempty"`
}

// run plays the slow watcher as user.
func (a *SlowWatchAction) run(ctx context.Context, p *player, user string) (StepResult, error) {
	hc, err := p.httpClientAs(user)
	if err != nil {
		return StepResult{}, err
	}
	r := &slowRun{a: a, p: p, user: user, hc: hc, ev: &SlowWatchEvidence{Lease: a.Namespace + "/" + a.Lease, Window: a.Window}}
	err = r.play(ctx)
	r.res.Evidence = r.ev
	r.res.Message = r.summary()
	if err != nil {
		r.res.Message += ": " + err.Error()
	}
	return r.res, err
}
