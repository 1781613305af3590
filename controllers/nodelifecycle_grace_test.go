package controllers

import (
	"testing"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
)

// TestMonitorGracePeriod: a grace period given is used as given at any
// speed, the startup grace period is never shorter and the monitor period
// is a tenth of it (the pod GC's period and quarantine two and four
// fifths); without one, upstream's 50 s is scaled (at least 10 s at speed
// 0) and those periods with it.
func TestMonitorGracePeriod(t *testing.T) {
	for _, tt := range []struct {
		speed          float64
		given          time.Duration
		grace, startup time.Duration
		monitor        time.Duration
		podGC, podGCQ  time.Duration // the pod GC's period and quarantine
	}{
		{1, 0, 50 * time.Second, 60 * time.Second, 5 * time.Second, 20 * time.Second, 40 * time.Second},
		{2, 0, 25 * time.Second, 30 * time.Second, 2500 * time.Millisecond, 10 * time.Second, 20 * time.Second},
		{0, 0, 10 * time.Second, 10 * time.Second, 250 * time.Millisecond, time.Second, 2 * time.Second},
		{0, 50 * time.Second, 50 * time.Second, 50 * time.Second, 5 * time.Second, 20 * time.Second, 40 * time.Second},
		{1, 90 * time.Second, 90 * time.Second, 90 * time.Second, 9 * time.Second, 36 * time.Second, 72 * time.Second},
	} {
		c := &Config{Speed: tt.speed, NodeMonitorGracePeriod: tt.given}
		if grace, startup := c.MonitorGracePeriod(), c.startupGracePeriod(); grace != tt.grace || startup != tt.startup {
			t.Errorf("speed %v, given %v: grace %v startup %v, want %v and %v", tt.speed, tt.given, grace, startup, tt.grace, tt.startup)
		}
		if got, want := c.monitorPeriod(), tt.monitor; got != want {
			t.Errorf("speed %v, given %v: monitor period %v, want %v", tt.speed, tt.given, got, want)
		}
		gc := NewPodGCController(c, informers.NewSharedInformerFactory(fake.NewClientset(), 0), fake.NewClientset(), DefaultTerminatedPodGCThreshold)
		if gc.period != tt.podGC || gc.quarantine != tt.podGCQ {
			t.Errorf("speed %v, given %v: pod GC every %v, quarantine %v; want %v and %v", tt.speed, tt.given, gc.period, gc.quarantine, tt.podGC, tt.podGCQ)
		}
	}
}
