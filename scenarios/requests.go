package scenarios

import (
	"context"
	"net/http"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/flow"
)

// The user agents of the runner's requests: those of the steps' actions,
// and those that check expectations (polls a viewer may leave out).
const (
	ActionUserAgent = "kubesim-scenario"
	ExpectUserAgent = "kubesim-expect"
)

// expectUser keys the client that checks expectations (admin, with
// ExpectUserAgent) in player.dyn.
const expectUser = "\x00expect"

// expectConfig is the client configuration of expectation checks made as
// user: its user agent is ExpectUserAgent.
func expectConfig(c *cluster.Cluster, user string) (*rest.Config, error) {
	cfg, err := c.RESTConfigAs(user)
	if err != nil {
		return nil, err
	}
	cfg.UserAgent = ExpectUserAgent
	return cfg, nil
}

// expectClient returns the admin client expectations are checked with.
func expectClient(c *cluster.Cluster) (kubernetes.Interface, error) {
	cfg, err := expectConfig(c, DefaultUser)
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}

// traceWait bounds how long a step waits, after its action, for the API
// server to record the traces of the action's requests (it records a
// trace once the response is written, a moment after the client has it).
const traceWait = 2 * time.Second

// auditNoter is the round tripper of the action clients: it notes the
// Audit-Id of every response, so the step can show those requests' traces.
type auditNoter struct {
	rt http.RoundTripper
	p  *player
}

func (a auditNoter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := a.rt.RoundTrip(req)
	if resp != nil {
		a.p.noteRequest(resp.Header.Get("Audit-Id"))
	}
	return resp, err
}

// noteRequest remembers the audit id of a request the running action sent
// (requests sent while expectations are checked are not the action's).
func (p *player) noteRequest(auditID string) {
	if auditID == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.acting {
		p.auditIDs = append(p.auditIDs, auditID)
	}
}

// startActing begins noting the requests of an action.
func (p *player) startActing() {
	p.mu.Lock()
	p.acting, p.auditIDs = true, nil
	p.mu.Unlock()
}

// stopActing ends it and returns the traces the API server recorded for
// the action's requests, in the order they were sent; it waits up to
// traceWait for traces not recorded yet, and leaves out those that do not
// come (a request cut off by a restart of the API server, say).
func (p *player) stopActing(ctx context.Context) []*flow.RequestTrace {
	p.mu.Lock()
	p.acting = false
	ids := p.auditIDs
	p.auditIDs = nil
	p.mu.Unlock()
	if len(ids) == 0 {
		return nil
	}
	deadline := time.NewTimer(traceWait)
	defer deadline.Stop()
	for {
		events, changed := p.snapshot()
		byID := map[string]*flow.RequestTrace{}
		for _, ev := range events {
			// The whole-request trace is the Stage 0 one; a pod create's
			// stage 1 carries the same request only up to admission.
			if ev.Stage == 0 && ev.Request != nil {
				byID[ev.Request.AuditID] = ev.Request
			}
		}
		var out []*flow.RequestTrace
		for _, id := range ids {
			if t, ok := byID[id]; ok {
				out = append(out, t)
			}
		}
		if len(out) == len(ids) {
			return out
		}
		select {
		case <-changed:
		case <-deadline.C:
			return out
		case <-ctx.Done():
			return out
		}
	}
}
