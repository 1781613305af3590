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

// deploymentExpectDoc is deployment as written.
type deploymentExpectDoc struct {
	Name        objectName  `yaml:"name" load:"required"`
	Namespace   *objectName `yaml:"namespace"`
	Revision    *positive   `yaml:"revision"`
	Desired     *count      `yaml:"desired"`
	Current     *count      `yaml:"current"`
	UpToDate    *count      `yaml:"upToDate"`
	Ready       *count      `yaml:"ready"`
	Available   *count      `yaml:"available"`
	Unavailable *count      `yaml:"unavailable"`
}

// Kind returns "deployment".
func (e *DeploymentExpectation) Kind() string { return "deployment" }

// String lists the figures it expects.
func (e *DeploymentExpectation) String() string {
	return fmt.Sprintf("deployment %s with %s", nsName(e.Deployment.Namespace, e.Deployment.Name), joinComma(e.wanted()))
}

// figures pairs each field name with its value in e.
func (e *DeploymentExpectation) figures() []figure {
	return []figure{{"revision", e.Revision}, {"desired", e.Desired}, {"current", e.Current}, {"upToDate", e.UpToDate},
		{"ready", e.Ready}, {"available", e.Available}, {"unavailable", e.Unavailable}}
}

// wanted lists the figures given, "ready 3".
func (e *DeploymentExpectation) wanted() []string { return wantedFigures(e.figures()) }

// parseDeploymentExpectation reads {name, namespace, revision, desired,
// current, upToDate, ready, available, unavailable}: name and at least
// one figure are required; figures are 0 or more (revision 1 or more).
func parseDeploymentExpectation(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	d, err := decodeAs[deploymentExpectDoc](n)
	if err != nil {
		return nil, err
	}
	e := &DeploymentExpectation{Deployment: deploymentDoc{d.Name, d.Namespace}.ref(), Revision: int64Of(d.Revision), Desired: int64Of(d.Desired),
		Current: int64Of(d.Current), UpToDate: int64Of(d.UpToDate), Ready: int64Of(d.Ready), Available: int64Of(d.Available), Unavailable: int64Of(d.Unavailable)}
	if len(e.wanted()) == 0 {
		return nil, errAt(n, "give at least one of %s", strings.Join(docKeys[deploymentExpectDoc]()[2:], ", "))
	}
	return e, nil
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
	if !figuresHold(e.figures(), got) {
		return seen, false, nil
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
