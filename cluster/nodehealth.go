package cluster

import (
	"time"

	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/kubelet"
)

// nodeHeartbeats sets a kubelet's heartbeat periods for a cluster of
// speed: the kubelet's Lease duration (40 s, renewed every quarter of it),
// its node status check (nodeStatusUpdateFrequency, 10 s) and its report
// of an unchanged status (nodeStatusReportFrequency, 5 min), each divided
// by controllers.NodeHealthSpeed(speed), the speed the node lifecycle
// controller's grace period runs at. A running kubelet's Lease then stays
// five renewals ahead of the grace period (10 s against 50 s at speed 1),
// and the controller sees a live node as live by its Lease even when its
// status is reported less often than the grace period (at speed 0: every
// 15 s against a grace period of 10 s). At speed 0 the status check stays
// at 10 s: divided by 20 it would GET every Node twice a second (200
// requests a second for 100 idle nodes) for a status that rarely changes;
// a kubelet that starts again reports at once, when it registers.
//
// A hollow kubelet (cfg.Hollow set) at speed 0 renews its Lease every
// ZeroSpeedMinNodeGracePeriod/5 (2 s, a Lease of 8 s) instead: the grace
// period it races is held at 10 s, and a renewal every fifth of it is
// upstream's proportion (10 s against 50 s), where 0.5 s would make a
// thousand hollow nodes send 2,000 renewals a second.
func nodeHeartbeats(cfg *kubelet.Config, speed float64) {
	cfg.LeaseDuration = nodeHealthPeriod(kubelet.DefaultLeaseDuration, speed)
	if cfg.Hollow != nil && speed <= 0 {
		cfg.LeaseDuration = 4 * controllers.ZeroSpeedMinNodeGracePeriod / 5
	}
	cfg.StatusUpdateFrequency = nodeHealthPeriod(kubelet.DefaultStatusUpdateFrequency, speed)
	if speed <= 0 {
		cfg.StatusUpdateFrequency = kubelet.DefaultStatusUpdateFrequency
	}
	cfg.StatusReportFrequency = nodeHealthPeriod(kubelet.DefaultStatusReportFrequency, speed)
}

// nodeHealthPeriod divides one of the kubelet's heartbeat periods at
// speed 1 by controllers.NodeHealthSpeed(speed).
func nodeHealthPeriod(d time.Duration, speed float64) time.Duration {
	return time.Duration(float64(d) / controllers.NodeHealthSpeed(speed))
}
