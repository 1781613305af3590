package metricsserver

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

// Group and kinds of what the server serves.
var (
	groupVersion = metricsv1beta1.SchemeGroupVersion
	nodeMetrics  = groupVersion.WithResource("nodemetrics").GroupResource()
	podMetrics   = groupVersion.WithResource("podmetrics").GroupResource()
)

// podsOnNode is the index of pods by spec.nodeName.
const podsOnNode = "spec.nodeName"

func indexByNode(obj any) ([]string, error) {
	if p, ok := obj.(*corev1.Pod); ok && p.Spec.NodeName != "" {
		return []string{p.Spec.NodeName}, nil
	}
	return nil, nil
}

// selection is a list's label and field selectors.
type selection struct {
	labels labels.Selector
	fields fields.Selector
}

func (s selection) matches(m metav1.Object) bool {
	set := fields.Set{"metadata.name": m.GetName()}
	if m.GetNamespace() != "" {
		set["metadata.namespace"] = m.GetNamespace()
	}
	return s.labels.Matches(labels.Set(m.GetLabels())) && s.fields.Matches(set)
}

// nodeMetricsFor returns the metrics of node, false if it has none (not
// Ready).
func (s *Server) nodeMetricsFor(node *corev1.Node, load Load) (metricsv1beta1.NodeMetrics, bool) {
	if !nodeReady(node) {
		return metricsv1beta1.NodeMetrics{}, false
	}
	var pods []*corev1.Pod
	objs, _ := s.podIndex.ByIndex(podsOnNode, node.Name)
	for _, o := range objs {
		pods = append(pods, o.(*corev1.Pod))
	}
	now := s.cfg.now()
	return metricsv1beta1.NodeMetrics{
		TypeMeta:   metav1.TypeMeta{Kind: "NodeMetrics", APIVersion: groupVersion.String()},
		ObjectMeta: metav1.ObjectMeta{Name: node.Name, Labels: node.Labels, CreationTimestamp: metav1.NewTime(now)},
		Timestamp:  metav1.NewTime(window(now)),
		Window:     metav1.Duration{Duration: Resolution},
		Usage:      load.NodeUsage(pods),
	}, true
}

// podMetricsFor returns the metrics of pod, false if it has none (not
// Running).
func (s *Server) podMetricsFor(pod *corev1.Pod, load Load) (metricsv1beta1.PodMetrics, bool) {
	containers := RunningContainers(pod)
	if len(containers) == 0 {
		return metricsv1beta1.PodMetrics{}, false
	}
	now := s.cfg.now()
	m := metricsv1beta1.PodMetrics{
		TypeMeta:   metav1.TypeMeta{Kind: "PodMetrics", APIVersion: groupVersion.String()},
		ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace, Labels: pod.Labels, CreationTimestamp: metav1.NewTime(now)},
		Timestamp:  metav1.NewTime(window(now)),
		Window:     metav1.Duration{Duration: Resolution},
		Containers: []metricsv1beta1.ContainerMetrics{},
	}
	for _, c := range containers {
		m.Containers = append(m.Containers, metricsv1beta1.ContainerMetrics{Name: c.Name, Usage: load.ContainerUsage(pod, c)})
	}
	return m, true
}

// listNodeMetrics returns the NodeMetricsList of the nodes sel matches.
func (s *Server) listNodeMetrics(sel selection) *metricsv1beta1.NodeMetricsList {
	list := &metricsv1beta1.NodeMetricsList{TypeMeta: metav1.TypeMeta{Kind: "NodeMetricsList", APIVersion: groupVersion.String()},
		Items: []metricsv1beta1.NodeMetrics{}}
	nodes, _ := s.nodes.List(sel.labels)
	load := s.load(metav1.NamespaceAll)
	for _, n := range nodes {
		if !sel.matches(n) {
			continue
		}
		if m, ok := s.nodeMetricsFor(n, load); ok {
			list.Items = append(list.Items, m)
		}
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	return list
}

// listPodMetrics returns the PodMetricsList of the pods of namespace ("":
// all) sel matches.
func (s *Server) listPodMetrics(namespace string, sel selection) *metricsv1beta1.PodMetricsList {
	list := &metricsv1beta1.PodMetricsList{TypeMeta: metav1.TypeMeta{Kind: "PodMetricsList", APIVersion: groupVersion.String()},
		Items: []metricsv1beta1.PodMetrics{}}
	var pods []*corev1.Pod
	if namespace == "" {
		pods, _ = s.pods.List(sel.labels)
	} else {
		pods, _ = s.pods.Pods(namespace).List(sel.labels)
	}
	load := s.load(namespace)
	for _, p := range pods {
		if !sel.matches(p) {
			continue
		}
		if m, ok := s.podMetricsFor(p, load); ok {
			list.Items = append(list.Items, m)
		}
	}
	sort.Slice(list.Items, func(i, j int) bool {
		a, b := list.Items[i], list.Items[j]
		return a.Namespace < b.Namespace || a.Namespace == b.Namespace && a.Name < b.Name
	})
	return list
}

// getNodeMetrics returns the metrics of the node called name, or a 404.
func (s *Server) getNodeMetrics(name string) (*metricsv1beta1.NodeMetrics, error) {
	n, err := s.nodes.Get(name)
	if err == nil {
		if m, ok := s.nodeMetricsFor(n, s.load(metav1.NamespaceAll)); ok {
			return &m, nil
		}
	}
	return nil, apierrors.NewNotFound(nodeMetrics, name)
}

// getPodMetrics returns the metrics of pod namespace/name, or a 404.
func (s *Server) getPodMetrics(namespace, name string) (*metricsv1beta1.PodMetrics, error) {
	p, err := s.pods.Pods(namespace).Get(name)
	if err == nil {
		if m, ok := s.podMetricsFor(p, s.load(namespace)); ok {
			return &m, nil
		}
	}
	return nil, apierrors.NewNotFound(podMetrics, name)
}

// load is the load that the Services of namespace ("": all) with a
// CPULoadAnnotation put on their ready endpoints' pods, from what the
// informers hold now.
func (s *Server) load(namespace string) Load {
	var services []*corev1.Service
	if namespace == metav1.NamespaceAll {
		services, _ = s.services.List(labels.Everything())
	} else {
		services, _ = s.services.Services(namespace).List(labels.Everything())
	}
	pod := func(ns, name string) *corev1.Pod {
		p, _ := s.pods.Pods(ns).Get(name)
		return p
	}
	load := Load{}
	for _, svc := range services {
		nanocores, ok := ServiceLoad(svc)
		if !ok {
			continue
		}
		objs, _ := s.slices.ByIndex(slicesOfService, svc.Namespace+"/"+svc.Name)
		slices := make([]*discoveryv1.EndpointSlice, 0, len(objs))
		for _, o := range objs {
			slices = append(slices, o.(*discoveryv1.EndpointSlice))
		}
		load.Spread(nanocores, slices, pod)
	}
	return load
}

var _ cache.IndexFunc = indexByNode
