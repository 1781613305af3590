package apiserver

import (
	"math"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
)

func TestWatchTimeout(t *testing.T) {
	const minTimeout = 30 * time.Minute
	maxSeconds := int64(maxWatchTimeout / time.Second)
	tests := []struct {
		name    string
		seconds *int64
		jitter  float64
		want    time.Duration
		wantErr string // the 400's message
	}{
		{name: "unset", jitter: 0, want: minTimeout},
		{name: "unset, jittered", jitter: 0.5, want: 45 * time.Minute},
		{name: "0 is unset", seconds: ptr.To[int64](0), jitter: 0.25, want: 37*time.Minute + 30*time.Second},
		{name: "5s", seconds: ptr.To[int64](5), want: 5 * time.Second},
		{name: "the cap itself", seconds: ptr.To(maxSeconds), want: maxWatchTimeout},
		{name: "one more than the cap", seconds: ptr.To(maxSeconds + 1), want: maxWatchTimeout},
		{name: "999999999999999999", seconds: ptr.To[int64](999999999999999999), want: maxWatchTimeout},
		{name: "MaxInt64", seconds: ptr.To[int64](math.MaxInt64), want: maxWatchTimeout},
		{name: "-1", seconds: ptr.To[int64](-1), wantErr: "timeoutSeconds: Invalid value: -1: must be greater than or equal to 0"},
		{name: "MinInt64", seconds: ptr.To[int64](math.MinInt64), wantErr: "timeoutSeconds: Invalid value: -9223372036854775808: must be greater than or equal to 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := watchTimeout(tt.seconds, minTimeout, tt.jitter)
			if tt.wantErr != "" {
				if !apierrors.IsBadRequest(err) || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want a BadRequest %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("watchTimeout = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// The cap is the largest whole number of seconds a Duration holds.
func TestMaxWatchTimeout(t *testing.T) {
	if maxWatchTimeout <= 0 || maxWatchTimeout%time.Second != 0 || math.MaxInt64-int64(maxWatchTimeout) >= int64(time.Second) {
		t.Errorf("maxWatchTimeout %d is not the largest whole-second Duration", maxWatchTimeout)
	}
}
