package scenarios

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"strconv"

	yaml "go.yaml.in/yaml/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
)

// UpdateAction reads an object, changes its labels and annotations and
// writes it back (PUT) with the resourceVersion ResourceVersion says.
type UpdateAction struct {
	Object      ObjectSpec
	Labels      map[string]string
	Annotations map[string]string
	// ResourceVersion is "current" (the one just read; on a 409 the
	// object is read again and the change redone, as
	// retry.RetryOnConflict does), "stale" (an older one this run saw,
	// sent once, so the write gets 409 Conflict) or a number (sent once).
	ResourceVersion string
}

var _ actionRunner = (*UpdateAction)(nil)

// updateDoc is update as written.
type updateDoc struct {
	objectDoc       `yaml:",inline"`
	Labels          map[mapKey]scalarText `yaml:"labels"`
	Annotations     map[mapKey]scalarText `yaml:"annotations"`
	ResourceVersion *strOrNumber          `yaml:"resourceVersion"`
}

func (a *UpdateAction) Kind() string { return "update" }
func (a *UpdateAction) String() string {
	return fmt.Sprintf("update %s (resourceVersion %s)", a.Object, a.ResourceVersion)
}

// parseUpdate reads {kind, name, namespace, labels, annotations,
// resourceVersion}; resourceVersion is current (the default), stale or a
// number.
func parseUpdate(l *loader, _ string, n *yaml.Node) (actionRunner, error) {
	var d updateDoc
	if err := decode(n, &d); err != nil {
		return nil, err
	}
	a := &UpdateAction{ResourceVersion: "current"}
	var err error
	if a.Object, err = l.objectRef(n, d.objectDoc); err != nil {
		return nil, err
	}
	if d.Labels != nil {
		a.Labels = stringMap(d.Labels)
	}
	if d.Annotations != nil {
		a.Annotations = stringMap(d.Annotations)
	}
	if d.ResourceVersion != nil {
		a.ResourceVersion = string(*d.ResourceVersion)
		if _, err := strconv.ParseUint(a.ResourceVersion, 10, 64); err != nil && a.ResourceVersion != "current" && a.ResourceVersion != "stale" {
			return nil, errAt(valueOf(n, "resourceVersion"), "%q is not current, stale or a number", a.ResourceVersion)
		}
	}
	return a, nil
}

// run reads the object, sets its labels and annotations, and writes it
// back with a PUT. With resourceVersion "current" it is a
// read-modify-write as client-go's retry.RetryOnConflict does it: a 409
// (someone wrote in between, the kubelet reporting status, say) means
// read again and redo the change on the fresh copy. With "stale" or a
// number, that version is sent once and its 409 is the result.
func (a *UpdateAction) run(ctx context.Context, p *player, user string) (StepResult, error) {
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
		u, err = ri.Update(ctx, a.changed(p, cur), metav1.UpdateOptions{})
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

// changed returns a copy of cur with the action's labels, annotations and
// resourceVersion.
func (a *UpdateAction) changed(p *player, cur *unstructured.Unstructured) *unstructured.Unstructured {
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
	return obj
}

// withEntries returns m (a new map when m is nil) with add's entries set.
func withEntries(m, add map[string]string) map[string]string {
	if m == nil {
		m = make(map[string]string, len(add))
	}
	maps.Copy(m, add)
	return m
}
