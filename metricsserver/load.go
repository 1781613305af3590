package metricsserver

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// CPULoadAnnotation is the load knob: on a Service, the cpu (a quantity:
// "900m", "2") that the Service's clients make its pods spend every
// second. It stands for the load generator of Kubernetes' HPA
// walkthrough (`while true; do wget -q -O- http://php-apache; done`):
// the metrics server spreads it evenly over the Service's ready
// endpoints (see Spread). A value that is not a quantity, or is not
// positive, puts no load.
const CPULoadAnnotation = "kubesim.io/cpu-load"

// Load is the cpu, in nanocores, that Services' traffic puts on
// containers: by pod (namespace/name), then container name. The zero
// value (nil) is no load; a Load is not safe for concurrent writes.
type Load map[string]map[string]int64

// on is the load on container of pod.
func (l Load) on(pod *corev1.Pod, container string) int64 {
	return l[pod.Namespace+"/"+pod.Name][container]
}

// add puts nanocores more on container of pod namespace/name.
func (l Load) add(namespace, name, container string, nanocores int64) {
	key := namespace + "/" + name
	if l[key] == nil {
		l[key] = map[string]int64{}
	}
	l[key][container] += nanocores
}

// ServiceLoad returns the cpu, in nanocores, that svc's
// CPULoadAnnotation asks for, and whether it asks for any.
func ServiceLoad(svc *corev1.Service) (int64, bool) {
	v, ok := svc.Annotations[CPULoadAnnotation]
	if !ok {
		return 0, false
	}
	q, err := resource.ParseQuantity(v)
	if err != nil || q.Sign() <= 0 {
		return 0, false
	}
	return q.ScaledValue(resource.Nano), true
}

// Spread puts nanocores on the ready endpoints of slices (the
// EndpointSlices of one Service) as kube-proxy spreads a Service's
// connections: evenly over the distinct pods whose endpoint is ready (a
// Ready condition that is true or unset), whether or not pod knows them.
// On each pod pod returns, the load goes to the container that declares
// one of its slice's ports as a containerPort, else to its first
// container. pod returns nil for a pod it does not hold (not Running).
func (l Load) Spread(nanocores int64, slices []*discoveryv1.EndpointSlice, pod func(namespace, name string) *corev1.Pod) {
	type target struct {
		namespace, name string
		ports           []discoveryv1.EndpointPort
	}
	seen := map[string]bool{}
	var targets []target
	for _, s := range slices {
		for _, ep := range s.Endpoints {
			ref := ep.TargetRef
			if ref == nil || ref.Kind != "Pod" || (ep.Conditions.Ready != nil && !*ep.Conditions.Ready) {
				continue
			}
			ns := ref.Namespace
			if ns == "" {
				ns = s.Namespace
			}
			if key := ns + "/" + ref.Name; !seen[key] {
				seen[key] = true
				targets = append(targets, target{ns, ref.Name, s.Ports})
			}
		}
	}
	if len(targets) == 0 {
		return
	}
	share := nanocores / int64(len(targets))
	for _, t := range targets {
		if p := pod(t.namespace, t.name); p != nil && len(p.Spec.Containers) > 0 {
			l.add(t.namespace, t.name, servingContainer(p, t.ports), share)
		}
	}
}

// servingContainer is the name of the container of pod that receives a
// Service's traffic on ports: the first that declares one of them as a
// containerPort, else the first container.
func servingContainer(pod *corev1.Pod, ports []discoveryv1.EndpointPort) string {
	for _, c := range pod.Spec.Containers {
		for _, cp := range c.Ports {
			for _, p := range ports {
				if p.Port != nil && *p.Port == cp.ContainerPort {
					return c.Name
				}
			}
		}
	}
	return pod.Spec.Containers[0].Name
}
