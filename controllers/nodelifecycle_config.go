package controllers

import "time"

// Names of the node lifecycle controller and the taint eviction
// controller. Upstream's kube-controller-manager (v1.37) runs them as two
// controllers, node-lifecycle-controller and taint-eviction-controller,
// but builds both clients as the service account node-controller (its
// ClusterRole system:controller:node-controller); kubesim does the same,
// with one descriptor, NodeControllerName, that runs both.
const (
	// NodeControllerName is the service account both act as, and the
	// event source (component) of the node lifecycle controller.
	NodeControllerName = "node-controller"
	// NodeLifecycleControllerName is upstream's controller name.
	NodeLifecycleControllerName = "node-lifecycle-controller"
	// TaintEvictionControllerName is upstream's controller name, and the
	// event source of the taint eviction controller's events.
	TaintEvictionControllerName = "taint-eviction-controller"
)

// kube-controller-manager's node lifecycle defaults in v1.37, at speed 1.
const (
	// DefaultNodeMonitorPeriod is --node-monitor-period: how often the
	// controller looks at every node's health signals.
	DefaultNodeMonitorPeriod = 5 * time.Second
	// DefaultNodeMonitorGracePeriod is --node-monitor-grace-period: a
	// node whose Lease and status have not been renewed for this long
	// gets its conditions set to Unknown.
	DefaultNodeMonitorGracePeriod = 50 * time.Second
	// DefaultNodeStartupGracePeriod is --node-startup-grace-period: the
	// grace period of a node that never posted a Ready condition.
	DefaultNodeStartupGracePeriod = 60 * time.Second
	// DefaultNodeEvictionRate is --node-eviction-rate: nodes per second
	// that get the NoExecute taint while their zone is healthy.
	DefaultNodeEvictionRate = 0.1
	// DefaultSecondaryNodeEvictionRate is --secondary-node-eviction-rate,
	// for a partially disrupted zone of more than
	// DefaultLargeClusterSizeThreshold nodes (0 for a smaller one).
	DefaultSecondaryNodeEvictionRate = 0.01
	// DefaultLargeClusterSizeThreshold is --large-cluster-size-threshold.
	DefaultLargeClusterSizeThreshold = 50
	// DefaultUnhealthyZoneThreshold is --unhealthy-zone-threshold: the
	// fraction of not-Ready nodes (at least 3) that makes a zone
	// partially disrupted.
	DefaultUnhealthyZoneThreshold = 0.55
	// NodeEvictionPeriod is how often the NoExecute tainting pass runs
	// (upstream's scheduler.NodeEvictionPeriod).
	NodeEvictionPeriod = 100 * time.Millisecond
	// minNodeEvictionPeriod bounds NodeEvictionPeriod from below at high
	// speeds: it only sets how soon a token of the rate limiter is used.
	minNodeEvictionPeriod = 10 * time.Millisecond
)

// ZeroSpeedNodeHealthSpeed is the speed node heartbeats and node health
// run at when the cluster's speed is 0. A node's health is a race
// between the kubelet's Lease renewals (every 10 s at speed 1) and the
// node lifecycle controller's grace period (50 s): both must run at the
// same speed, or healthy nodes go Unknown. Dividing them by 1000, as the
// other controllers' periods are at speed 0, would renew each Lease 100
// times a second and call a node dead after 50 ms of a busy machine; at
// speed 0 they run 20 times faster instead (a Lease renewed every 0.5 s,
// pods evicted 15 s after the taint), except the grace periods, which
// are at least ZeroSpeedMinNodeGracePeriod.
const ZeroSpeedNodeHealthSpeed = 20

// ZeroSpeedMinNodeGracePeriod bounds the node monitor and startup grace
// periods from below at speed 0. 20 times faster, the grace period would
// be 2.5 s: a machine busy enough to delay a kubelet's renewals (the
// test suite on two cores, a benchmark of a thousand pods) made healthy
// nodes Unknown and tainted, and evicted their pods. With 10 s a node is
// called Unknown after 20 missed renewals instead of 5; at a speed set
// by the user the proportions are upstream's.
const ZeroSpeedMinNodeGracePeriod = 10 * time.Second

// NodeHealthSpeed is the speed that node heartbeats (the kubelet's Lease
// renewals) and the node lifecycle and taint eviction controllers' periods
// run at for a cluster of speed: speed itself, or ZeroSpeedNodeHealthSpeed
// at speed 0. The cluster gives its kubelets a Lease duration divided by
// it, and Config.Speed gives it to the controllers.
func NodeHealthSpeed(speed float64) float64 {
	if speed <= 0 {
		return ZeroSpeedNodeHealthSpeed
	}
	return speed
}

// nodeHealthPeriod scales one of upstream's node health periods (grace
// periods, tolerationSeconds) by NodeHealthSpeed(c.Speed).
func (c *Config) nodeHealthPeriod(d time.Duration) time.Duration {
	return time.Duration(float64(d) / NodeHealthSpeed(c.Speed))
}

// nodeGracePeriod scales a node grace period (--node-monitor-grace-period,
// --node-startup-grace-period) as nodeHealthPeriod does, to no less than
// ZeroSpeedMinNodeGracePeriod at speed 0.
func (c *Config) nodeGracePeriod(d time.Duration) time.Duration {
	scaled := c.nodeHealthPeriod(d)
	if c.Speed <= 0 {
		return max(scaled, ZeroSpeedMinNodeGracePeriod)
	}
	return scaled
}

// MonitorGracePeriod is the node monitor grace period: NodeMonitorGracePeriod
// if set, else upstream's default scaled as nodeGracePeriod does. The
// startup grace period is never shorter (upstream's defaults: 60 s
// against 50 s).
func (c *Config) MonitorGracePeriod() time.Duration {
	if c.NodeMonitorGracePeriod > 0 {
		return c.NodeMonitorGracePeriod
	}
	return c.nodeGracePeriod(DefaultNodeMonitorGracePeriod)
}

// monitorPeriod is how often the controller looks at every node: upstream's
// --node-monitor-period scaled by NodeHealthSpeed, or, when
// NodeMonitorGracePeriod is given, in upstream's proportion to it (5 s
// against 50 s): at speed 0 the controller would otherwise look at each
// of 10,000 nodes four times a second for a grace period of 50 s.
func (c *Config) monitorPeriod() time.Duration {
	return c.gracePeriodProportion(DefaultNodeMonitorPeriod)
}

// gracePeriodProportion is one of upstream's periods tied to node health
// (d, upstream's value): when NodeMonitorGracePeriod is given, in
// upstream's proportion to it (d against 50 s), else scaled by
// NodeHealthSpeed (nodeHealthPeriod).
func (c *Config) gracePeriodProportion(d time.Duration) time.Duration {
	if c.NodeMonitorGracePeriod > 0 {
		return time.Duration(float64(d) * float64(c.NodeMonitorGracePeriod) / float64(DefaultNodeMonitorGracePeriod))
	}
	return c.nodeHealthPeriod(d)
}

// startupGracePeriod is the node startup grace period: upstream's default
// scaled as nodeGracePeriod does, and no shorter than MonitorGracePeriod.
func (c *Config) startupGracePeriod() time.Duration {
	return max(c.nodeGracePeriod(DefaultNodeStartupGracePeriod), c.MonitorGracePeriod())
}

// nodeHealthRate scales a rate (per second) by NodeHealthSpeed(c.Speed).
func (c *Config) nodeHealthRate(perSecond float64) float32 {
	return float32(perSecond * NodeHealthSpeed(c.Speed))
}
