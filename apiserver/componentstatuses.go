package apiserver

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// componentProbeTimeout bounds the etcd probe (upstream's probeTimeOut).
const componentProbeTimeout = 20 * time.Second

// The components of componentstatuses besides etcd, with the secure
// ports kube-apiserver probes their /healthz on (on 127.0.0.1: it
// assumes them on its own node, as kubeadm lays them out).
var probedComponents = []struct {
	name string
	port int
}{{"scheduler", 10259}, {"controller-manager", 10257}}

// componentStatusReads are the reads of componentstatuses, computed at
// each request as upstream's componentstatus REST does: a component the
// cluster runs (Config.ComponentRunning) answers its /healthz with "ok";
// one it does not run is reported as kube-apiserver reports a refused
// connection to its port; etcd-0 is healthy when a read of its health key
// succeeds.
var componentStatusReads = &computedReads{
	get: func(s *Server, ctx context.Context, name string) (runtime.Object, error) {
		for _, cs := range s.componentStatuses(ctx) {
			if cs.Name == name {
				return &cs, nil
			}
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "componentstatus"}, name)
	},
	list: func(s *Server, ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error) {
		list := &corev1.ComponentStatusList{Items: []corev1.ComponentStatus{}}
		for _, cs := range s.componentStatuses(ctx) {
			if componentStatusMatches(&cs, opts) {
				cs.TypeMeta = metav1.TypeMeta{} // a list's items carry no kind, as upstream's
				list.Items = append(list.Items, cs)
			}
		}
		return list, nil
	},
}

// componentStatuses probes every component, in upstream's usual order.
func (s *Server) componentStatuses(ctx context.Context) []corev1.ComponentStatus {
	var out []corev1.ComponentStatus
	for _, c := range probedComponents {
		cond := corev1.ComponentCondition{Type: corev1.ComponentHealthy, Status: corev1.ConditionTrue, Message: "ok"}
		if s.cfg.ComponentRunning == nil || !s.cfg.ComponentRunning(c.name) {
			cond.Status = corev1.ConditionFalse
			cond.Message = fmt.Sprintf("Get \"https://127.0.0.1:%d/healthz\": dial tcp 127.0.0.1:%d: connect: connection refused", c.port, c.port)
		}
		out = append(out, componentStatus(c.name, cond))
	}
	cond := corev1.ComponentCondition{Type: corev1.ComponentHealthy, Status: corev1.ConditionTrue, Message: "ok"}
	pctx, cancel := context.WithTimeout(ctx, componentProbeTimeout)
	defer cancel()
	if _, err := s.cfg.Etcd.Get(pctx, "/registry/health"); err != nil {
		cond.Status, cond.Message, cond.Error = corev1.ConditionFalse, "", fmt.Sprintf("error getting data from etcd: %v", err)
	}
	return append(out, componentStatus("etcd-0", cond))
}

func componentStatus(name string, cond corev1.ComponentCondition) corev1.ComponentStatus {
	cs := corev1.ComponentStatus{Conditions: []corev1.ComponentCondition{cond}}
	cs.Name = name
	cs.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ComponentStatus"))
	return cs
}

// componentStatusMatches applies a list's selectors to cs, whose fields
// are metadata.name and metadata.namespace (empty), as upstream's
// matchesPredicate.
func componentStatusMatches(cs *corev1.ComponentStatus, opts *metainternalversion.ListOptions) bool {
	if opts == nil {
		return true
	}
	if opts.LabelSelector != nil && !opts.LabelSelector.Matches(labels.Set(cs.Labels)) {
		return false
	}
	fs := fields.Set{"metadata.name": cs.Name, "metadata.namespace": ""}
	return opts.FieldSelector == nil || opts.FieldSelector.Matches(fs)
}
