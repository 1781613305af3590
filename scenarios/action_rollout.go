package scenarios

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// The rollout actions (scale, setImage, rolloutUndo, passReadinessGates)
// and the deployment expectations (deployment, replicaSets) name a
// Deployment as {deployment, namespace}; this file has what they share.

// revisionAnnotation is the annotation the deployment controller keeps
// a ReplicaSet's (and its Deployment's) revision in.
const revisionAnnotation = "deployment.kubernetes.io/revision"

// revisionHistoryAnnotation lists the earlier revisions a ReplicaSet
// had, comma-separated (a rollback makes an old ReplicaSet new again).
const revisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"

// deploymentDoc is the deployment and namespace naming a Deployment.
type deploymentDoc struct {
	Deployment objectName  `yaml:"deployment" load:"required"`
	Namespace  *objectName `yaml:"namespace"`
}

// ref returns the Deployment d names, in DefaultNamespace if d gives no
// namespace.
func (d deploymentDoc) ref() ObjectSpec {
	o := ObjectSpec{Kind: "Deployment", Name: string(d.Deployment), Namespace: DefaultNamespace}
	if d.Namespace != nil {
		o.Namespace = string(*d.Namespace)
	}
	return o
}

// deploymentName is "deployment/web" or "deployment/web -n ns", as
// kubectl is typed.
func deploymentName(o ObjectSpec) string {
	if o.Namespace == DefaultNamespace {
		return "deployment/" + o.Name
	}
	return "deployment/" + o.Name + " -n " + o.Namespace
}

// kubectlOutput is the line kubectl prints after acting on the
// Deployment: "deployment.apps/web scaled".
func kubectlOutput(o ObjectSpec, what string) string {
	return "deployment.apps/" + o.Name + " " + what
}

// getDeployment reads the Deployment as user.
func (p *player) getDeployment(ctx context.Context, o ObjectSpec, user string) (*appsv1.Deployment, error) {
	ri, err := p.resource(o, user)
	if err != nil {
		return nil, err
	}
	u, err := ri.Get(ctx, o.Name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	p.remember(u)
	d := &appsv1.Deployment{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, d); err != nil {
		return nil, fmt.Errorf("deployment %s: %w", o.Name, err)
	}
	return d, nil
}

// replicaSetsOf lists d's ReplicaSets as kubectl's rollout commands
// find them: those its selector matches that it controls (ownerReference
// with controller: true and its UID), oldest first.
func (p *player) replicaSetsOf(ctx context.Context, d *appsv1.Deployment, user string) ([]*appsv1.ReplicaSet, error) {
	return listControlled[appsv1.ReplicaSet](ctx, p, "ReplicaSet", d, d.Spec.Selector, user)
}

// listControlled lists, as user, the objects of kind in owner's
// namespace that match selector and that owner controls, oldest first
// (by creation, then name): a Deployment's ReplicaSets, a ReplicaSet's
// pods.
func listControlled[T any, PT interface {
	*T
	metav1.Object
}](ctx context.Context, p *player, kind string, owner metav1.Object, selector *metav1.LabelSelector, user string) ([]PT, error) {
	sel, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		return nil, fmt.Errorf("%s: selector: %w", owner.GetName(), err)
	}
	ri, err := p.resource(ObjectSpec{Kind: kind, Namespace: owner.GetNamespace()}, user)
	if err != nil {
		return nil, err
	}
	list, err := ri.List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, err
	}
	var out []PT
	for _, item := range list.Items {
		obj := PT(new(T))
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(item.Object, obj); err != nil {
			return nil, fmt.Errorf("%s %s: %w", strings.ToLower(kind), item.GetName(), err)
		}
		if metav1.IsControlledBy(obj, owner) {
			out = append(out, obj)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].GetCreationTimestamp(), out[j].GetCreationTimestamp()
		if a.Equal(&b) {
			return out[i].GetName() < out[j].GetName()
		}
		return a.Before(&b)
	})
	return out, nil
}

// rsRevision is a ReplicaSet's revision, or -1 when its annotation is
// missing or not a number.
func rsRevision(rs *appsv1.ReplicaSet) int64 { return revisionIn(rs.Annotations) }

// revisionIn reads the revision annotation of a ReplicaSet or
// Deployment: -1 when it is missing or not a number.
func revisionIn(annotations map[string]string) int64 {
	v, err := strconv.ParseInt(annotations[revisionAnnotation], 10, 64)
	if err != nil {
		return -1
	}
	return v
}

// replicaSetOfRevision returns d's ReplicaSet whose revision is rev.
func (p *player) replicaSetOfRevision(ctx context.Context, o ObjectSpec, rev int64, user string) (*appsv1.ReplicaSet, error) {
	d, err := p.getDeployment(ctx, o, user)
	if err != nil {
		return nil, err
	}
	rss, err := p.replicaSetsOf(ctx, d, user)
	if err != nil {
		return nil, err
	}
	var revs []string
	for _, rs := range rss {
		if rsRevision(rs) == rev {
			return rs, nil
		}
		revs = append(revs, rs.Annotations[revisionAnnotation])
	}
	return nil, fmt.Errorf("deployment %s has no ReplicaSet of revision %d (revisions: %s)", o.Name, rev, joinComma(revs))
}
