package controllers

import (
	"testing"
	"time"
)

// TestMonitorGracePeriod: a grace period given is used as given at any
// speed, the startup grace period is never shorter and the monitor period
// is a tenth of it; without one, upstream's 50 s is scaled (at least 10 s
// at speed 0) and the monitor period with it.
func TestMonitorGracePeriod(t *testing.T) {
	for _, tt := range []struct {
		speed          float64
		given          time.Duration
		grace, startup time.Duration
		monitor        time.Duration
	}{
		{1, 0, 50 * time.Second, 60 * time.Second, 5 * time.Second},
		{2, 0, 25 * time.Second, 30 * time.Second, 2500 * time.Millisecond},
		{0, 0, 10 * time.Second, 10 * time.Second, 250 * time.Millisecond},
		{0, 50 * time.Second, 50 * time.Second, 50 * time.Second, 5 * time.Second},
		{1, 90 * time.Second, 90 * time.Second, 90 * time.Second, 9 * time.Second},
	} {
		c := &Config{Speed: tt.speed, NodeMonitorGracePeriod: tt.given}
		if grace, startup := c.MonitorGracePeriod(), c.startupGracePeriod(); grace != tt.grace || startup != tt.startup {
			t.Errorf("speed %v, given %v: grace %v startup %v, want %v and %v", tt.speed, tt.given, grace, startup, tt.grace, tt.startup)
		}
		if got, want := c.monitorPeriod(), tt.monitor; got != want {
			t.Errorf("speed %v, given %v: monitor period %v, want %v", tt.speed, tt.given, got, want)
		}
	}
}
