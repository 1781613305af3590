package cluster

import (
	"context"
	"testing"
	"time"

	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

func TestLeaderElectionTimings(t *testing.T) {
	tests := []struct {
		speed float64
		want  LeaderElectionTimings
	}{
		{0, DefaultLeaderElectionTimings}, // no simulated delays: upstream's
		{1, DefaultLeaderElectionTimings},
		{2, LeaderElectionTimings{7500 * time.Millisecond, 5 * time.Second, time.Second}},
		{7.5, LeaderElectionTimings{2 * time.Second, 4 * time.Second / 3, 4 * time.Second / 15}},
		{MaxLeaderElectionSpeed, LeaderElectionTimings{time.Second, 10 * time.Second / 15, 2 * time.Second / 15}},
		{100, LeaderElectionTimings{time.Second, 10 * time.Second / 15, 2 * time.Second / 15}}, // a Lease counts whole seconds
	}
	for _, tt := range tests {
		got := leaderElectionTimings(tt.speed)
		if got != tt.want {
			t.Errorf("speed %v: got %+v, want %+v", tt.speed, got, tt.want)
		}
		// client-go accepts them: lease > renew deadline > 1.2 retry periods.
		_, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock:          &resourcelock.LeaseLock{LockConfig: resourcelock.ResourceLockConfig{Identity: "x"}},
			LeaseDuration: got.LeaseDuration, RenewDeadline: got.RenewDeadline, RetryPeriod: got.RetryPeriod,
			Callbacks: leaderelection.LeaderCallbacks{OnStartedLeading: func(context.Context) {}, OnStoppedLeading: func() {}},
		})
		if err != nil {
			t.Errorf("speed %v: client-go refuses %+v: %v", tt.speed, got, err)
		}
		if got.LeaseDuration < time.Second {
			t.Errorf("speed %v: a Lease of %v counts 0 whole seconds", tt.speed, got.LeaseDuration)
		}
	}
}
