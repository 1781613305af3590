package scenarios

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"unicode/utf8"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"

	"github.com/kubesim/kubesim/kubelet"
)

// act runs the step's action. A non-nil error means the action failed;
// the result says how (its HTTP status, when there was a request).
func (p *player) act(ctx context.Context, st *Step) (StepResult, error) {
	switch a := st.Action.(type) {
	case *ApplyAction:
		return p.apply(ctx, a, st.As)
	case *UpdateAction:
		return p.update(ctx, a, st.As)
	case *DeleteAction:
		return p.delete(ctx, a, st.As)
	case *PatchAction:
		ri, err := p.resource(a.Object, st.As)
		if err != nil {
			return StepResult{}, err
		}
		pt := map[string]types.PatchType{"strategic": types.StrategicMergePatchType, "merge": types.MergePatchType, "json": types.JSONPatchType}[a.Type]
		var sub []string
		if a.Subresource != "" {
			sub = []string{a.Subresource}
		}
		u, err := ri.Patch(ctx, a.Object.Name, pt, []byte(a.Patch), metav1.PatchOptions{}, sub...)
		p.remember(u)
		return resultOf(err, http.StatusOK), err
	case *AddNodeAction:
		p.specs[a.Node.Name] = a.Node
		err := p.c.StartKubelet(a.Node)
		return StepResult{}, err
	case *NodeAction:
		var err error
		switch a.Verb {
		case "removeNode":
			err = p.c.RemoveNode(ctx, a.Node)
		case "stopKubelet":
			err = p.c.StopKubelet(a.Node)
		case "startKubelet":
			spec, ok := p.specs[a.Node]
			if !ok {
				spec = kubelet.DefaultNodeSpec(a.Node)
			}
			err = p.c.StartKubelet(spec)
		}
		return StepResult{}, err
	case *ControlAction:
		var err error
		switch a.Verb {
		case "stopScheduler":
			err = p.c.StopScheduler()
		case "startScheduler":
			err = p.c.StartScheduler()
		case "restartAPIServer":
			err = p.c.RestartAPIServer(ctx)
		case "compactEtcd":
			var rev int64
			rev, err = p.c.CompactEtcd(ctx)
			if err == nil {
				return StepResult{Message: fmt.Sprintf("compacted at revision %d", rev)}, nil
			}
		}
		return StepResult{}, err
	case *HTTPAction:
		return p.http(ctx, a, st.As)
	}
	return StepResult{}, fmt.Errorf("unknown action %s", st.Action.Kind())
}

// client returns a dynamic client acting as user.
func (p *player) client(user string) (dynamic.Interface, error) {
	p.mu.Lock()
	d, ok := p.dyn[user]
	p.mu.Unlock()
	if ok {
		return d, nil
	}
	var cfg *rest.Config
	var err error
	if user == expectUser {
		cfg, err = expectConfig(p.c, DefaultUser)
	} else {
		cfg, err = p.actionConfig(user)
	}
	if err != nil {
		return nil, err
	}
	d, err = dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.dyn[user] = d
	p.mu.Unlock()
	return d, nil
}

// actionConfig is the client configuration of a step's action as user:
// its user agent is ActionUserAgent and every response's Audit-Id is
// noted (auditNoter).
func (p *player) actionConfig(user string) (*rest.Config, error) {
	cfg, err := p.c.RESTConfigAs(user)
	if err != nil {
		return nil, err
	}
	cfg.UserAgent = ActionUserAgent
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return auditNoter{rt: rt, p: p} })
	return cfg, nil
}

// resource returns the client of o's resource, acting as user.
func (p *player) resource(o ObjectSpec, user string) (dynamic.ResourceInterface, error) {
	d, err := p.client(user)
	if err != nil {
		return nil, err
	}
	info := kinds[o.Kind]
	r := d.Resource(info.gvr)
	if info.namespaced {
		return r.Namespace(o.Namespace), nil
	}
	return r, nil
}

// apply runs an apply or create action, object by object. create sends
// a POST (kubectl create: an object that exists is a 409); apply does
// what client-side kubectl apply does (applyOne).
func (p *player) apply(ctx context.Context, a *ApplyAction, user string) (StepResult, error) {
	res := StepResult{}
	var msgs []string
	for _, obj := range a.Objects {
		obj = obj.DeepCopy()
		o := objectOf(obj)
		ri, err := p.resource(o, user)
		if err != nil {
			return StepResult{}, err
		}
		if a.Create {
			u, err := ri.Create(ctx, obj, metav1.CreateOptions{})
			if err != nil {
				return resultOf(err, 0), err
			}
			p.remember(u)
			res.Status = http.StatusCreated
			msgs = append(msgs, o.String()+" created")
			continue
		}
		status, verb, err := p.applyOne(ctx, ri, obj)
		if err != nil {
			return resultOf(err, 0), err
		}
		res.Status = status
		msgs = append(msgs, o.String()+" "+verb)
	}
	res.Message = strings.Join(msgs, "; ")
	return res, nil
}

// update runs an update action: read the object, set its labels and
// annotations, write it back with a PUT. With resourceVersion "current"
// it is a read-modify-write as client-go's retry.RetryOnConflict does it:
// a 409 (someone wrote in between, the kubelet reporting status, say)
// means read again and redo the change on the fresh copy. With "stale" or
// a number, that version is sent once and its 409 is the result.
func (p *player) update(ctx context.Context, a *UpdateAction, user string) (StepResult, error) {
	ri, err := p.resource(a.Object, user)
	if err != nil {
		return StepResult{}, err
	}
	var cur, u *unstructured.Unstructured
	conflicts := 0
	attempt := func() error {
		var err error
		if cur, err = ri.Get(ctx, a.Object.Name, metav1.GetOptions{}); err != nil {
			return err
		}
		p.remember(cur)
		obj := cur.DeepCopy()
		switch a.ResourceVersion {
		case "current":
		case "stale":
			obj.SetResourceVersion(p.staleVersion(a.Object, cur.GetResourceVersion()))
		default:
			obj.SetResourceVersion(a.ResourceVersion)
		}
		if len(a.Labels) > 0 {
			obj.SetLabels(withEntries(obj.GetLabels(), a.Labels))
		}
		if len(a.Annotations) > 0 {
			obj.SetAnnotations(withEntries(obj.GetAnnotations(), a.Annotations))
		}
		u, err = ri.Update(ctx, obj, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) {
			conflicts++
		}
		p.remember(u)
		return err
	}
	if a.ResourceVersion == "current" {
		err = retry.RetryOnConflict(retry.DefaultRetry, attempt)
	} else {
		err = attempt()
	}
	res := resultOf(err, http.StatusOK)
	if err == nil {
		res.Message = fmt.Sprintf("%s updated: resourceVersion %s → %s", a.Object, cur.GetResourceVersion(), u.GetResourceVersion())
		if conflicts > 0 {
			res.Message += fmt.Sprintf(" (%d of %d tries got 409 Conflict: each time it read the object again, redid the change and retried)", conflicts, conflicts+1)
		}
	}
	return res, err
}

// delete runs a delete action. Like kubectl delete it sends no
// precondition: whatever the current version, the object is deleted.
func (p *player) delete(ctx context.Context, a *DeleteAction, user string) (StepResult, error) {
	ri, err := p.resource(a.Object, user)
	if err != nil {
		return StepResult{}, err
	}
	err = ri.Delete(ctx, a.Object.Name, metav1.DeleteOptions{GracePeriodSeconds: a.GracePeriodSeconds})
	if err != nil || !a.Wait {
		return resultOf(err, http.StatusOK), err
	}
	for {
		_, err := ri.Get(ctx, a.Object.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return StepResult{Status: http.StatusOK, Message: a.Object.String() + " deleted"}, nil
		}
		if err := sleep(ctx, pollInterval); err != nil {
			return StepResult{Status: http.StatusOK}, fmt.Errorf("%s still exists: %w", a.Object, err)
		}
	}
}

// withEntries returns m (a new map when m is nil) with add's entries set.
func withEntries(m, add map[string]string) map[string]string {
	if m == nil {
		m = make(map[string]string, len(add))
	}
	maps.Copy(m, add)
	return m
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// truncate shortens s to at most n bytes (on a rune boundary), marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func joinComma(s []string) string { return strings.Join(s, ", ") }
