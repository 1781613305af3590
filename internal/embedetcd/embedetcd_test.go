package embedetcd_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubesim/kubesim/internal/embedetcd"
)

func TestRestartKeepsDataAndRevisions(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()

	s, err := embedetcd.Start(context.Background(), embedetcd.NewConfig(dir))
	if err != nil {
		t.Fatal(err)
	}
	put, err := s.Client().Put(ctx, "/registry/test/a", "one")
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	s, err = embedetcd.Start(context.Background(), embedetcd.NewConfig(dir))
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	defer s.Close()
	got, err := s.Client().Get(ctx, "/registry/test/a")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Kvs) != 1 || string(got.Kvs[0].Value) != "one" {
		t.Fatalf("after restart got %v, want the value written before", got.Kvs)
	}
	if got.Kvs[0].ModRevision != put.Header.Revision {
		t.Errorf("mod revision after restart = %d, want %d", got.Kvs[0].ModRevision, put.Header.Revision)
	}
	put2, err := s.Client().Put(ctx, "/registry/test/b", "two")
	if err != nil {
		t.Fatal(err)
	}
	if put2.Header.Revision <= put.Header.Revision {
		t.Errorf("revision after restart = %d, want > %d", put2.Header.Revision, put.Header.Revision)
	}
}

func TestLogsGoToFile(t *testing.T) {
	dir := t.TempDir()
	s, err := embedetcd.Start(context.Background(), embedetcd.NewConfig(dir))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	fi, err := os.Stat(filepath.Join(dir, "logs", "etcd.log"))
	if err != nil {
		t.Fatalf("etcd log: %v", err)
	}
	if fi.Size() == 0 {
		t.Error("etcd log is empty, want etcd's start-up lines")
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*embedetcd.Config)
	}{
		{"empty dir", func(c *embedetcd.Config) { c.Dir = "" }},
		{"empty log file", func(c *embedetcd.Config) { c.LogFile = "" }},
		{"zero progress interval", func(c *embedetcd.Config) { c.ProgressNotifyInterval = 0 }},
		{"zero start timeout", func(c *embedetcd.Config) { c.StartTimeout = 0 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := embedetcd.NewConfig(t.TempDir())
			tt.mutate(c)
			if err := c.Validate(); err == nil {
				t.Error("Validate() = nil, want an error")
			}
		})
	}
}

func TestOnlyThisUserReachesTheMember(t *testing.T) {
	dir := t.TempDir()
	cfg := embedetcd.NewConfig(dir)
	s, err := embedetcd.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fi, err := os.Stat(cfg.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("etcd data dir mode %v, want no access for group and others", fi.Mode().Perm())
	}
	sock, err := os.Stat(filepath.Join(cfg.Dir, "client.sock"))
	if err != nil {
		t.Fatalf("client socket: %v", err)
	}
	if sock.Mode()&os.ModeSocket == 0 {
		t.Errorf("%s is not a socket", sock.Name())
	}
	if _, err := s.Client().Put(context.Background(), "/k", "v"); err != nil {
		t.Errorf("put through the socket: %v", err)
	}
}
