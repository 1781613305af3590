package cluster

import (
	"strings"
	"testing"
	"time"

	"github.com/kubesim/kubesim/kubelet"
)

// TestNodeHeartbeatsOverride: a Lease duration given is used as given,
// for real and hollow kubelets, at any speed, with upstream's node status
// periods; without one the scaled
// defaults stay (8 s for a hollow kubelet at speed 0, 2 s for a real one).
func TestNodeHeartbeatsOverride(t *testing.T) {
	for _, tt := range []struct {
		name   string
		hollow bool
		speed  float64
		lease  time.Duration
		want   time.Duration
	}{
		{"real, speed 1", false, 1, 0, 40 * time.Second},
		{"real, speed 0", false, 0, 0, 2 * time.Second},
		{"hollow, speed 0", true, 0, 0, 8 * time.Second},
		{"hollow, speed 0, given", true, 0, 40 * time.Second, 40 * time.Second},
		{"real, speed 2, given", false, 2, 30 * time.Second, 30 * time.Second},
	} {
		cfg := &kubelet.Config{}
		if tt.hollow {
			cfg.Hollow = &kubelet.HollowHost{}
		}
		nodeHeartbeats(cfg, tt.speed, tt.lease)
		if cfg.LeaseDuration != tt.want {
			t.Errorf("%s: LeaseDuration %v, want %v", tt.name, cfg.LeaseDuration, tt.want)
		}
		if tt.lease > 0 && (cfg.StatusUpdateFrequency != kubelet.DefaultStatusUpdateFrequency || cfg.StatusReportFrequency != kubelet.DefaultStatusReportFrequency) {
			t.Errorf("%s: status every %v, reported every %v; want upstream's", tt.name, cfg.StatusUpdateFrequency, cfg.StatusReportFrequency)
		}
	}
}

// TestValidateHeartbeats: negative periods are refused, and so is a Lease
// renewed less than twice within the grace period, counting a period
// left to its scaled default.
func TestValidateHeartbeats(t *testing.T) {
	for _, tt := range []struct {
		name         string
		speed        float64
		lease, grace time.Duration
		want         string // "" valid
	}{
		{"defaults", 0, 0, 0, ""},
		{"upstream's at speed 0", 0, 40 * time.Second, 50 * time.Second, ""},
		{"lease alone at speed 0", 0, 40 * time.Second, 0, "--node-lease-duration is renewed every 10s, which must be at most half the node monitor grace period (10s)"},
		{"grace alone at speed 1", 1, 0, 15 * time.Second, "--node-lease-duration is renewed every 10s, which must be at most half the node monitor grace period (15s)"},
		{"grace alone at speed 0", 0, 0, 50 * time.Second, ""},
		{"grace alone at speed 0, shorter than a hollow node's renewals allow", 0, 0, 3 * time.Second, "--node-lease-duration is renewed every 2s, which must be at most half the node monitor grace period (3s)"},
		{"negative lease", 1, -time.Second, 0, "--node-lease-duration must not be negative, got -1s"},
		{"negative grace", 1, 0, -time.Second, "--node-monitor-grace-period must not be negative, got -1s"},
	} {
		cfg := NewConfig()
		cfg.Speed, cfg.NodeLeaseDuration, cfg.NodeMonitorGracePeriod = tt.speed, tt.lease, tt.grace
		err := cfg.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}
