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

// TestPlayPodCreateTraceZh checks that in Chinese the API server's trace
// of the pod's create says in Chinese who the user is and why RBAC
// allowed the request, protocol tokens kept as they are, with no English
// sentence left; and that its admission steps and the narration's list
// of validating plugins agree.
func TestPlayPodCreateTraceZh(t *testing.T) {
	out := playPodCreate(t, "zh")
	block := stageBlock(t, out, 1)
	for _, want := range []string{
		`认证          成功      用户 "admin"，组 [system:masters system:authenticated]，认证方式 x509`,
		`鉴权          允许      RBAC：允许，依据是 ClusterRoleBinding "cluster-admin"，它把 ClusterRole "cluster-admin" 绑定给 Group "system:masters"`,
		`收到          成功      POST /api/v1/namespaces/default/pods，经 HTTP/2.0，来自 127.0.0.1:`,
		`聚合层        委托      aggregator：APIService v1. 是 Local 的：委托给 kube-apiserver`,
		`变更型准入插件 ServiceAccount：补默认值 spec.serviceAccountName=default`,
	} {
		if !strings.Contains(block, want) {
			t.Errorf("the zh trace lacks %q:\n%s", want, block)
		}
	}
	english := regexp.MustCompile(`\b(user|groups|allowed|authenticated as|by|of|to|over|from|admission plugin|defaults applied)\b`)
	for _, l := range strings.Split(block, "\n") {
		if !strings.Contains(l, "认证  ") && !strings.Contains(l, "鉴权  ") && !strings.Contains(l, "收到  ") && !strings.Contains(l, "准入  ") {
			continue
		}
		if w := english.FindString(strings.ReplaceAll(l, "system:authenticated", "")); w != "" {
			t.Errorf("English %q left in the zh trace line %q", w, l)
		}
	}
	validating := admissionPlugins(block, regexp.MustCompile(`验证型准入插件 (\w+)：`))
	if want := []string{"LimitRanger", "ServiceAccount", "Priority", "ResourceQuota"}; !slices.Equal(validating, want) {
		t.Errorf("validating plugins in the zh trace: %v, want %v", validating, want)
	}
	if list := "（" + strings.Join(validating, "、") + "）"; !strings.Contains(out, "实现了 Validate 的那些插件"+list) {
		t.Errorf("the zh narration does not list the trace's validating plugins %s", list)
	}
}
