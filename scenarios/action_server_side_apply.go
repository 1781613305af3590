package scenarios

import (
	"context"
	"net/http"
	"strings"
	"sync"

	yaml "go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
)

// ServerSideApplyAction applies a manifest as `kubectl apply
// --server-side [--field-manager=NAME] [--force-conflicts]` does: one
// PATCH of type application/apply-patch+yaml per object, with the
// fieldManager (kubectl's default: kubectl) and force query parameters;
// the API server merges the configuration by the kind's schema, records
// the fields in it as the manager's, creates a missing object, and
// refuses (409) to change a field another manager owns unless forced.
type ServerSideApplyAction struct {
	Objects      []*unstructured.Unstructured
	FieldManager string
	Force        bool
}

var _ actionRunner = (*ServerSideApplyAction)(nil)

// serverSideApplyDoc is serverSideApply as written.
type serverSideApplyDoc struct {
	Manifest     str      `yaml:"manifest" load:"required"`
	FieldManager *str     `yaml:"fieldManager"`
	Force        *boolean `yaml:"force"`
}

// defaultFieldManager is kubectl apply --server-side's field manager.
const defaultFieldManager = "kubectl"

// Kind returns "serverSideApply".
func (a *ServerSideApplyAction) Kind() string { return "serverSideApply" }

// String is the kubectl command it does.
func (a *ServerSideApplyAction) String() string {
	var names []string
	for _, o := range a.Objects {
		names = append(names, objectOf(o).String())
	}
	cmd := "kubectl apply --server-side"
	if a.FieldManager != defaultFieldManager {
		cmd += " --field-manager=" + a.FieldManager
	}
	if a.Force {
		cmd += " --force-conflicts"
	}
	return cmd + ": " + strings.Join(names, ", ")
}

// parseServerSideApply reads {manifest, fieldManager, force}: a manifest
// written in the scenario file, whose errors point into it.
func parseServerSideApply(l *loader, _ string, n *yaml.Node) (actionRunner, error) {
	var d serverSideApplyDoc
	if err := decode(n, &d); err != nil {
		return nil, err
	}
	m := valueOf(n, "manifest")
	objs, err := l.manifest(l.file, string(d.Manifest), l.blockPos(m), true)
	if err != nil {
		return nil, err
	}
	a := &ServerSideApplyAction{Objects: objs, FieldManager: defaultFieldManager}
	if d.FieldManager != nil {
		if *d.FieldManager == "" {
			return nil, errAt(valueOf(n, "fieldManager"), "empty (leave it out for kubectl's default, kubectl)")
		}
		a.FieldManager = string(*d.FieldManager)
	}
	if d.Force != nil {
		a.Force = bool(*d.Force)
	}
	return a, nil
}

// run applies the objects one by one as user, stopping at the first
// error (a conflict is then the step's result: 409 and upstream's
// message). The step's status is the last answer's: 201 when the apply
// created the object, 200 when it changed one. The transcript has each
// request and kubectl's line.
func (a *ServerSideApplyAction) run(ctx context.Context, p *player, user string) (StepResult, error) {
	p.mu.Lock()
	server := p.actionServer
	p.mu.Unlock()
	cfg, err := p.actionConfig(user, server)
	if err != nil {
		return StepResult{}, err
	}
	status := &statusRecorder{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { status.next = rt; return status })
	d, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return StepResult{}, err
	}
	res := StepResult{}
	var msgs []string
	for _, obj := range a.Objects {
		o := objectOf(obj)
		info, ok := kinds[o.Kind]
		if !ok {
			info, _ = p.customKind(o.Kind)
		}
		var ri dynamic.ResourceInterface = d.Resource(info.gvr)
		if info.namespaced {
			ri = d.Resource(info.gvr).Namespace(o.Namespace)
		}
		addTranscript(&res, "> PATCH %s/%s?fieldManager=%s&force=%t, Content-Type application/apply-patch+yaml", info.gvr.Resource, o.Name, a.FieldManager, a.Force)
		u, err := ri.Apply(ctx, obj.GetName(), obj.DeepCopy(), metav1.ApplyOptions{FieldManager: a.FieldManager, Force: a.Force})
		if err != nil {
			r := resultOf(err, 0)
			r.Transcript = res.Transcript
			addTranscript(&r, "< %s", errString(err))
			return r, err
		}
		p.remember(u)
		res.Status = status.last()
		line := kubectlName(obj) + " serverside-applied"
		addTranscript(&res, "< %d; kubectl: %s", res.Status, line)
		transcribeManagedFields(&res, u)
		msgs = append(msgs, line)
	}
	res.Message = strings.Join(msgs, "; ")
	return res, nil
}

// transcribeManagedFields adds u's managedFields entries to the
// transcript, each with the fields it owns, as the API server returned
// them.
func transcribeManagedFields(res *StepResult, u *unstructured.Unstructured) {
	for _, e := range u.GetManagedFields() {
		owned, err := ownedPaths(e)
		if err != nil {
			addTranscript(res, "  managedFields: %v", err)
			continue
		}
		addTranscript(res, "  managedFields: %s: %s", entryName(e), strings.Join(owned, ", "))
	}
}

// statusRecorder remembers the status code of the last response through
// it.
type statusRecorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	code int
}

// RoundTrip implements http.RoundTripper.
func (s *statusRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.next.RoundTrip(r)
	if err == nil {
		s.mu.Lock()
		s.code = resp.StatusCode
		s.mu.Unlock()
	}
	return resp, err
}

// last is the status code of the last response.
func (s *statusRecorder) last() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.code
}

// kubectlName is how kubectl names obj in its output:
// "deployment.apps/web", "configmap/settings".
func kubectlName(obj *unstructured.Unstructured) string {
	gvk := obj.GroupVersionKind()
	kind := strings.ToLower(gvk.Kind)
	if gvk.Group != "" {
		kind += "." + gvk.Group
	}
	return kind + "/" + obj.GetName()
}
