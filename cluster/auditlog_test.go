package cluster_test

import (
	"strings"
	"testing"

	"github.com/kubesim/kubesim/cluster"
)

func TestValidateAuditLogRotation(t *testing.T) {
	if got := cluster.NewConfig().AuditLogRotation; got != cluster.DefaultAuditLogRotation || got.MaxSizeMB != 100 || got.MaxBackups != 3 {
		t.Errorf("default audit log rotation = %+v, want 100 MB and 3 backups", got)
	}
	cfg := cluster.NewConfig()
	cfg.AuditLogRotation.MaxBackups = -1
	err := cfg.Validate()
	if err == nil || !strings.Contains(err.Error(), "--audit-log-maxbackup must not be negative, got -1") {
		t.Errorf("Validate with --audit-log-maxbackup -1: %v", err)
	}
}
