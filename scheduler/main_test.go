package scheduler

import (
	"os"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// TestMain keeps klog quiet: the scheduler logs its failures, which the
// tests provoke on purpose. (A test that starts a cluster points klog at
// the cluster's log file instead.)
func TestMain(m *testing.M) {
	klog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}
