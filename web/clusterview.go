package web

import (
	"context"
	"encoding/json"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// clusterPeriod is how often the cluster's state is looked at for a
// change to send (a cluster message at most this often).
const clusterPeriod = time.Second

// maxKubeEvents is how many of the newest Kubernetes Events a cluster
// message carries.
const maxKubeEvents = 8

// watchCluster follows the cluster's nodes, pods and Events with
// client-go informers (its requests say they are the web view's, so
// that the diagram does not draw them) and calls send with its state
// whenever that changed, until ctx is done. A nil cfg (a replay) has no
// cluster: it returns at once.
func watchCluster(ctx context.Context, cfg *rest.Config, send func(clusterMsg)) {
	if cfg == nil {
		return
	}
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = webUserAgent
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return
	}
	f := informers.NewSharedInformerFactory(cs, 0)
	nodes := f.Core().V1().Nodes().Lister()
	pods := f.Core().V1().Pods().Lister()
	events := f.Core().V1().Events().Lister()
	f.Start(ctx.Done())
	defer f.Shutdown()
	f.WaitForCacheSync(ctx.Done())
	var last []byte
	tick := time.NewTicker(clusterPeriod)
	defer tick.Stop()
	for {
		ns, _ := nodes.List(labels.Everything())
		ps, _ := pods.List(labels.Everything())
		es, _ := events.List(labels.Everything())
		m := clusterState(ns, ps, es)
		if data, _ := json.Marshal(m); string(data) != string(last) {
			last = data
			send(m)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// clusterState is the message for the nodes (by name, with their Ready
// condition and pods), and the newest Events, oldest first.
func clusterState(nodes []*corev1.Node, pods []*corev1.Pod, events []*corev1.Event) clusterMsg {
	m := clusterMsg{T: "cluster", Nodes: []nodeMsg{}, Events: []kubeEventMsg{}}
	perNode := map[string]int{}
	for _, p := range pods {
		if p.Spec.NodeName != "" && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			perNode[p.Spec.NodeName]++
		}
	}
	for _, n := range nodes {
		ready := "Unknown"
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady {
				ready = string(c.Status)
			}
		}
		m.Nodes = append(m.Nodes, nodeMsg{Name: n.Name, Ready: ready, Pods: perNode[n.Name]})
	}
	sort.Slice(m.Nodes, func(i, j int) bool { return m.Nodes[i].Name < m.Nodes[j].Name })
	sort.Slice(events, func(i, j int) bool {
		ti, tj := eventTime(events[i]), eventTime(events[j])
		if !ti.Equal(tj) {
			return ti.Before(tj)
		}
		return events[i].Namespace+"/"+events[i].Name < events[j].Namespace+"/"+events[j].Name
	})
	if len(events) > maxKubeEvents {
		events = events[len(events)-maxKubeEvents:]
	}
	for _, e := range events {
		m.Events = append(m.Events, kubeEventMsg{Type: e.Type, Reason: e.Reason,
			Object: e.InvolvedObject.Kind + "/" + e.InvolvedObject.Name, Message: e.Message})
	}
	return m
}

// eventTime is when an Event last happened, as kubectl get events sorts.
func eventTime(e *corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.CreationTimestamp.Time
}
