package controllers

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// findPort resolves the Service port's targetPort against the pod, as
// upstream's FindPort: a number is used as it is; a name is looked up
// among the ports of the pod's containers (then of its sidecars,
// restartable init containers) with the same protocol. A pod with no
// such port gets no endpoint port for it.
func findPort(pod *corev1.Pod, svcPort *corev1.ServicePort) (int32, error) {
	target := svcPort.TargetPort
	switch target.Type {
	case intstr.Int:
		return int32(target.IntValue()), nil
	case intstr.String:
		if p, ok := namedPort(pod.Spec.Containers, target.StrVal, svcPort.Protocol, false); ok {
			return p, nil
		}
		if p, ok := namedPort(pod.Spec.InitContainers, target.StrVal, svcPort.Protocol, true); ok {
			return p, nil
		}
	}
	return 0, fmt.Errorf("pod %s/%s has no port %q (%s)", pod.Namespace, pod.Name, target.String(), svcPort.Protocol)
}

// namedPort finds the container port name with protocol among cs (only
// restartable ones if sidecarsOnly).
func namedPort(cs []corev1.Container, name string, protocol corev1.Protocol, sidecarsOnly bool) (int32, bool) {
	for _, c := range cs {
		if sidecarsOnly && (c.RestartPolicy == nil || *c.RestartPolicy != corev1.ContainerRestartPolicyAlways) {
			continue
		}
		for _, p := range c.Ports {
			if p.Name == name && p.Protocol == protocol {
				return p.ContainerPort, true
			}
		}
	}
	return 0, false
}
