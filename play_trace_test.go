package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// playPodCreate plays pod-create as plain text in lang and returns what
// it printed.
func playPodCreate(t *testing.T, lang string) string {
	t.Helper()
	code, out, errs := runMain(t, "", "play", "pod-create", "--plain", "--speed", "0", "--lang", lang, "--data-dir", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s\nstdout:\n%s", code, errs, out)
	}
	return out
}

// stageBlock is the block of out that stage n's header starts (up to the
// next empty line).
func stageBlock(t *testing.T, out string, n int) string {
	t.Helper()
	header := regexp.MustCompile(`(?m)^\[` + string(rune('0'+n)) + `/8\] .*$`)
	at := header.FindStringIndex(out)
	if at == nil {
		t.Fatalf("no stage %d in:\n%s", n, out)
	}
	block, _, _ := strings.Cut(out[at[0]:], "\n\n")
	return block
}

// admissionPlugins lists the plugins of block's trace lines that match
// re (its first submatch), in order.
func admissionPlugins(block string, re *regexp.Regexp) []string {
	var out []string
	for _, m := range re.FindAllStringSubmatch(block, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestPlayPodCreateAdmissionPhases checks the trace of the pod's create
// against kube-apiserver's chain (NamespaceLifecycle and NodeRestriction
// are mutating plugins only, Priority is validating too; the plugins of
// a phase in upstream's order), and the narration's list of validating
// plugins against the trace.
func TestPlayPodCreateAdmissionPhases(t *testing.T) {
	out := playPodCreate(t, "en")
	block := stageBlock(t, out, 1)
	mutating := admissionPlugins(block, regexp.MustCompile(`mutating admission plugin (\w+):`))
	validating := admissionPlugins(block, regexp.MustCompile(`validating admission plugin (\w+):`))
	wantMutating := []string{"NamespaceLifecycle", "LimitRanger", "ServiceAccount", "NodeRestriction", "Priority",
		"DefaultTolerationSeconds", "DefaultStorageClass", "StorageObjectInUseProtection"}
	wantValidating := []string{"LimitRanger", "ServiceAccount", "Priority", "ResourceQuota"}
	if !slices.Equal(mutating, wantMutating) {
		t.Errorf("mutating plugins in the trace: %v, want %v", mutating, wantMutating)
	}
	if !slices.Equal(validating, wantValidating) {
		t.Errorf("validating plugins in the trace: %v, want %v", validating, wantValidating)
	}
	if list := "(" + strings.Join(validating, ", ") + ")"; !strings.Contains(out, "implements Validate "+list) {
		t.Errorf("the narration does not list the trace's validating plugins %s", list)
	}
}
