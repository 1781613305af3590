package cluster

import (
	"time"

	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/kubelet"
)

// nodeLeaseDuration is the kubelets' Lease duration in a cluster of
// speed: the kubelet's 40 s (renewed every quarter of it) divided by
// controllers.NodeHealthSpeed(speed), the speed the node lifecycle
// controller's grace period runs at, so that a running kubelet's Lease
// always stays five renewals ahead of it (10 s against 50 s at speed 1).
func nodeLeaseDuration(speed float64) time.Duration {
	return time.Duration(float64(kubelet.DefaultLeaseDuration) / controllers.NodeHealthSpeed(speed))
}
