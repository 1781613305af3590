package scenarios

import (
	"context"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AutoscalerExpectation: the HorizontalPodAutoscaler's status has every
// figure given: the REPLICAS column of kubectl get hpa (currentReplicas),
// the replicas it last asked for (desiredReplicas) and the cpu
// utilization of its TARGETS column (the average utilization, in percent
// of the pods' requests, of its cpu resource metric in
// status.currentMetrics), exactly or within bounds. A nil figure is not
// checked.
type AutoscalerExpectation struct {
	Autoscaler ObjectSpec
	// Current is status.currentReplicas, Desired status.desiredReplicas.
	Current, Desired *int64
	// Utilization, UtilizationAtLeast and UtilizationAtMost bound the
	// cpu metric's current averageUtilization.
	Utilization, UtilizationAtLeast, UtilizationAtMost *int64
}

var _ prober = (*AutoscalerExpectation)(nil)

// autoscalerExpectDoc is autoscaler as written.
type autoscalerExpectDoc struct {
	Name               objectName  `yaml:"name" load:"required"`
	Namespace          *objectName `yaml:"namespace"`
	Current            *count      `yaml:"current"`
	Desired            *count      `yaml:"desired"`
	Utilization        *count      `yaml:"utilization"`
	UtilizationAtLeast *count      `yaml:"utilizationAtLeast"`
	UtilizationAtMost  *count      `yaml:"utilizationAtMost"`
}

// Kind returns "autoscaler".
func (e *AutoscalerExpectation) Kind() string { return "autoscaler" }

// String lists the figures it expects.
func (e *AutoscalerExpectation) String() string {
	return fmt.Sprintf("autoscaler %s with %s", nsName(e.Autoscaler.Namespace, e.Autoscaler.Name), joinComma(e.wanted()))
}

// wanted lists the figures given, "desired 5", "utilization ≥ 181".
func (e *AutoscalerExpectation) wanted() []string {
	var out []string
	for _, f := range []struct {
		name string
		v    *int64
	}{{"current", e.Current}, {"desired", e.Desired}, {"utilization", e.Utilization},
		{"utilization ≥", e.UtilizationAtLeast}, {"utilization ≤", e.UtilizationAtMost}} {
		if f.v != nil {
			out = append(out, fmt.Sprintf("%s %d", f.name, *f.v))
		}
	}
	return out
}

// parseAutoscaler reads {name, namespace, current, desired, utilization,
// utilizationAtLeast, utilizationAtMost}: name and at least one figure.
func parseAutoscaler(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	d, err := decodeAs[autoscalerExpectDoc](n)
	if err != nil {
		return nil, err
	}
	e := &AutoscalerExpectation{Autoscaler: ObjectSpec{Kind: "HorizontalPodAutoscaler", Name: string(d.Name), Namespace: DefaultNamespace},
		Current: int64Of(d.Current), Desired: int64Of(d.Desired), Utilization: int64Of(d.Utilization),
		UtilizationAtLeast: int64Of(d.UtilizationAtLeast), UtilizationAtMost: int64Of(d.UtilizationAtMost)}
	if d.Namespace != nil {
		e.Autoscaler.Namespace = string(*d.Namespace)
	}
	if len(e.wanted()) == 0 {
		return nil, errAt(n, "give at least one of %s", strings.Join(docKeys[autoscalerExpectDoc]()[2:], ", "))
	}
	return e, nil
}

// probe reads the HorizontalPodAutoscaler.
func (e *AutoscalerExpectation) probe(ctx context.Context, p *player) (string, bool, <-chan struct{}) {
	h, err := p.admin.AutoscalingV2().HorizontalPodAutoscalers(e.Autoscaler.Namespace).Get(ctx, e.Autoscaler.Name, metav1.GetOptions{})
	if err != nil {
		return errString(err), false, nil
	}
	util, hasUtil := cpuUtilization(h)
	seen := fmt.Sprintf("current %d, desired %d, cpu utilization %s", h.Status.CurrentReplicas, h.Status.DesiredReplicas, utilizationText(util, hasUtil))
	ok := (e.Current == nil || int64(h.Status.CurrentReplicas) == *e.Current) &&
		(e.Desired == nil || int64(h.Status.DesiredReplicas) == *e.Desired)
	if e.Utilization != nil || e.UtilizationAtLeast != nil || e.UtilizationAtMost != nil {
		ok = ok && hasUtil && (e.Utilization == nil || util == *e.Utilization) &&
			(e.UtilizationAtLeast == nil || util >= *e.UtilizationAtLeast) && (e.UtilizationAtMost == nil || util <= *e.UtilizationAtMost)
	}
	if !ok {
		return seen, false, nil
	}
	return "", true, nil
}

// cpuUtilization is the current average utilization of h's cpu resource
// metric, and whether h's status has one.
func cpuUtilization(h *autoscalingv2.HorizontalPodAutoscaler) (int64, bool) {
	for _, m := range h.Status.CurrentMetrics {
		if m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU &&
			m.Resource.Current.AverageUtilization != nil {
			return int64(*m.Resource.Current.AverageUtilization), true
		}
	}
	return 0, false
}

// utilizationText is util as kubectl get hpa writes it, "<unknown>"
// without one.
func utilizationText(util int64, ok bool) string {
	if !ok {
		return "<unknown>"
	}
	return fmt.Sprintf("%d%%", util)
}
