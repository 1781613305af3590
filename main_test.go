package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestCommandLine(t *testing.T) {
	tests := []struct {
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{[]string{"version"}, 0, "kubesim serving the Kubernetes API v1.", ""},
		{[]string{"--bogus"}, 2, "", "unknown flag: --bogus"},
		{[]string{"serve", "extra"}, 2, "", `unknown command "extra" for "kubesim serve"`},
		{[]string{"nope"}, 2, "", `unknown command "nope" for "kubesim"`},
		{[]string{"serve", "--port", "70000"}, 2, "", "--port must be between 0 and 65535, got 70000"},
		{[]string{"play", "pod-create", "--port", "-1"}, 2, "", "--port must be between 0 and 65535, got -1"},
		{[]string{"--version"}, 0, "kubesim serving the Kubernetes API v1.", ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cmd := newRootCommand(strings.NewReader(""), &stdout, &stderr)
			cmd.SetArgs(tt.args)
			code := exitCode(cmd.ExecuteContext(context.Background()), &stderr)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tt.wantCode, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.wantOut) {
				t.Errorf("stdout %q, want it to contain %q", stdout.String(), tt.wantOut)
			}
			if !strings.Contains(stderr.String(), tt.wantErr) {
				t.Errorf("stderr %q, want it to contain %q", stderr.String(), tt.wantErr)
			}
		})
	}
}
