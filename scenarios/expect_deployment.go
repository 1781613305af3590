package scenarios

import (
	"context"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DeploymentExpectation: the Deployment's status is of its current
// generation (status.observedGeneration ≥ metadata.generation) and has
// every figure given, the columns of kubectl get deployment and the
// revision kubectl rollout history shows. A nil figure is not checked.
type DeploymentExpectation struct {
	Deployment ObjectSpec
	// Revision is the deployment.kubernetes.io/revision annotation.
	Revision *int64
	// Desired is spec.replicas, Current status.replicas, UpToDate
	// status.updatedReplicas, Ready status.readyReplicas, Available
	// status.availableReplicas and Unavailable status.unavailableReplicas.
	Desired, Current, UpToDate, Ready, Available, Unavailable *int64
}

var _ prober = (*DeploymentExpectation)(nil)

// deploymentExpectKeys are the fields of deployment.
var deploymentExpectKeys = []string{"name", "namespace", "revision", "desired", "current", "upToDate", "ready", "available", "unavailable"}

// Kind returns "deployment".
func (e *DeploymentExpectation) Kind() string { return "deployment" }

// String lists the figures it expects.
func (e *DeploymentExpectation) String() string {
	return fmt.Sprintf("deployment %s with %s", nsName(e.Deployment.Namespace, e.Deployment.Name), joinComma(e.wanted()))
}

// figures pairs each field name with its value in e.
func (e *DeploymentExpectation) figures() []struct {
	name string
	want **int64
} {
	return []struct {
		name string
		want **int64
	}{{"revision", &e.Revision}, {"desired", &e.Desired}, {"current", &e.Current}, {"upToDate", &e.UpToDate},
		{"ready", &e.Ready}, {"available", &e.Available}, {"unavailable", &e.Unavailable}}
}

// wanted lists the figures given, "ready 3".
func (e *DeploymentExpectation) wanted() []string {
	var out []string
	for _, f := range e.figures() {
		if *f.want != nil {
			out = append(out, fmt.Sprintf("%s %d", f.name, **f.want))
		}
	}
	return out
}

// parseDeploymentExpectation reads {name, namespace, revision, desired,
// current, upToDate, ready, available, unavailable}: name and at least
// one figure are required; figures are 0 or more (revision 1 or more).
func parseDeploymentExpectation(l *loader, key string, n *yaml.Node) (Expectation, error) {
	fields, _, err := l.fields(n, key, deploymentExpectKeys)
	if err != nil {
		return nil, err
	}
	e := &DeploymentExpectation{Deployment: ObjectSpec{Kind: "Deployment", Namespace: DefaultNamespace}}
	f, ok := fields["name"]
	if !ok {
		return nil, l.errAt(n, "%s: missing field \"name\"", key)
	}
	if e.Deployment.Name, err = l.objectName(f.val, key+".name"); err != nil {
		return nil, err
	}
	if f, ok := fields["namespace"]; ok {
		if e.Deployment.Namespace, err = l.objectName(f.val, key+".namespace"); err != nil {
			return nil, err
		}
	}
	for _, fig := range e.figures() {
		if *fig.want, err = l.optionalCount(fields, key, fig.name, fig.name == "revision"); err != nil {
			return nil, err
		}
	}
	if len(e.wanted()) == 0 {
		return nil, l.errAt(n, "%s: give at least one of %s", key, strings.Join(deploymentExpectKeys[2:], ", "))
	}
	return e, nil
}

// optionalCount reads fields[name], if given, as an integer of at least
// 0 (1 if positive).
func (l *loader) optionalCount(fields map[string]field, what, name string, positive bool) (*int64, error) {
	f, ok := fields[name]
	if !ok {
		return nil, nil
	}
	least := int64(0)
	if positive {
		least = 1
	}
	v, err := l.atLeast(f.val, what+"."+name, least)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// probe reads the Deployment.
func (e *DeploymentExpectation) probe(ctx context.Context, p *player) (string, bool, <-chan struct{}) {
	d, err := p.admin.AppsV1().Deployments(e.Deployment.Namespace).Get(ctx, e.Deployment.Name, metav1.GetOptions{})
	if err != nil {
		return errString(err), false, nil
	}
	got := deploymentFigures(d)
	seen := fmt.Sprintf("revision %s, desired %d, current %d, upToDate %d, ready %d, available %d, unavailable %d",
		d.Annotations[revisionAnnotation], got["desired"], got["current"], got["upToDate"], got["ready"], got["available"], got["unavailable"])
	if d.Status.ObservedGeneration < d.Generation {
		return fmt.Sprintf("%s, but its status is of generation %d, not %d yet", seen, d.Status.ObservedGeneration, d.Generation), false, nil
	}
	for _, f := range e.figures() {
		if *f.want != nil && got[f.name] != **f.want {
			return seen, false, nil
		}
	}
	return "", true, nil
}

// deploymentFigures are the figures of d the expectation compares, by
// field name (revision -1 when the annotation is missing).
func deploymentFigures(d *appsv1.Deployment) map[string]int64 {
	rev := revisionIn(d.Annotations)
	desired := int64(1)
	if d.Spec.Replicas != nil {
		desired = int64(*d.Spec.Replicas)
	}
	s := d.Status
	return map[string]int64{"revision": rev, "desired": desired, "current": int64(s.Replicas), "upToDate": int64(s.UpdatedReplicas),
		"ready": int64(s.ReadyReplicas), "available": int64(s.AvailableReplicas), "unavailable": int64(s.UnavailableReplicas)}
}
