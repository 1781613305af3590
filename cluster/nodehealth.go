package cluster

import (
	"fmt"
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
//
// lease, if positive, is the Lease duration as given
// (Config.NodeLeaseDuration), for real and hollow kubelets alike; the
// node status is then checked and reported at upstream's periods too
// (every 10 s; unchanged, every 5 minutes), whatever the speed: at speed
// 0 a report every 15 s would be 667 status patches a second from 10,000
// nodes.
func nodeHeartbeats(cfg *kubelet.Config, speed float64, lease time.Duration) {
	if lease > 0 {
		cfg.LeaseDuration = lease
		cfg.StatusUpdateFrequency = kubelet.DefaultStatusUpdateFrequency
		cfg.StatusReportFrequency = kubelet.DefaultStatusReportFrequency
		return
	}
	cfg.LeaseDuration = defaultLeaseDuration(speed, cfg.Hollow != nil)
	cfg.StatusUpdateFrequency = nodeHealthPeriod(kubelet.DefaultStatusUpdateFrequency, speed)
	if speed <= 0 {
		cfg.StatusUpdateFrequency = kubelet.DefaultStatusUpdateFrequency
	}
	cfg.StatusReportFrequency = nodeHealthPeriod(kubelet.DefaultStatusReportFrequency, speed)
}

// defaultLeaseDuration is a kubelet's Lease duration when none is given:
// upstream's scaled by NodeHealthSpeed, or 4/5 of
// ZeroSpeedMinNodeGracePeriod for a hollow kubelet at speed 0.
func defaultLeaseDuration(speed float64, hollow bool) time.Duration {
	if hollow && speed <= 0 {
		return 4 * controllers.ZeroSpeedMinNodeGracePeriod / 5
	}
	return nodeHealthPeriod(kubelet.DefaultLeaseDuration, speed)
}

// nodeHealthPeriod divides one of the kubelet's heartbeat periods at
// speed 1 by controllers.NodeHealthSpeed(speed).
func nodeHealthPeriod(d time.Duration, speed float64) time.Duration {
	return time.Duration(float64(d) / controllers.NodeHealthSpeed(speed))
}

// heartbeatPeriods are the node heartbeat periods a cluster was given
// (Config.NodeLeaseDuration, NodeMonitorGracePeriod); zero: scaled
// defaults.
type heartbeatPeriods struct{ lease, grace time.Duration }

// validateHeartbeats checks NodeLeaseDuration and NodeMonitorGracePeriod:
// neither negative, and every kubelet, hollow ones too, renewing its Lease
// every quarter of its duration well within the grace period (at most
// half of it), or healthy nodes would go Unknown between renewals.
func (c *Config) validateHeartbeats() []error {
	var errs []error
	if c.NodeLeaseDuration < 0 {
		errs = append(errs, &OptionError{Option: "node-lease-duration", Value: c.NodeLeaseDuration, Reason: "must not be negative"})
	}
	if c.NodeMonitorGracePeriod < 0 {
		errs = append(errs, &OptionError{Option: "node-monitor-grace-period", Value: c.NodeMonitorGracePeriod, Reason: "must not be negative"})
	}
	if len(errs) > 0 || c.NodeLeaseDuration == 0 && c.NodeMonitorGracePeriod == 0 {
		return errs
	}
	lease := c.NodeLeaseDuration
	if lease == 0 {
		// The longest a kubelet of this cluster may take: a hollow one's
		// (nodes past the first realKubeletLimit, started or added later).
		lease = defaultLeaseDuration(c.Speed, true)
	}
	cc := controllers.Config{Speed: c.Speed, NodeMonitorGracePeriod: c.NodeMonitorGracePeriod}
	if grace := cc.MonitorGracePeriod(); lease/4 > grace/2 {
		errs = append(errs, &OptionError{Option: "node-lease-duration", Value: lease,
			Reason: fmt.Sprintf("is renewed every %v, which must be at most half the node monitor grace period (%v), or healthy nodes go Unknown", lease/4, grace)})
	}
	return errs
}
