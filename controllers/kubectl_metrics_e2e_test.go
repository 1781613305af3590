package controllers_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// podTemplateYAML is a PodTemplate named name, for kubectl create -f -.
func podTemplateYAML(name string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: PodTemplate
metadata:
  name: %s
template:
  spec:
    containers:
    - name: c
      image: nginx
`, name)
}

// createdPodTemplates is the value of the apiserver_request_total series
// of PodTemplates created (POST, 201) in `kubectl get --raw /metrics`
// (0 before the first), and the lines of that family kubectl printed.
func createdPodTemplates(t *testing.T, k *kubectl) (float64, []string) {
	t.Helper()
	const series = `apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="podtemplates",scope="resource",subresource="",verb="POST",version="v1"} `
	var lines []string
	value := 0.0
	for _, line := range strings.Split(k.must(t, "get", "--raw", "/metrics"), "\n") {
		if !strings.Contains(line, "apiserver_request_total") {
			continue
		}
		lines = append(lines, line)
		if v, ok := strings.CutPrefix(line, series); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			value = f
		}
	}
	return value, lines
}

// TestKubectlGetRawMetrics: `kubectl get --raw /metrics | grep
// apiserver_request_total` shows kube-apiserver's counter with upstream's
// HELP and TYPE lines and labels, and the series of PodTemplates created
// rises by the three kubectl creates; the student, who is not in
// system:monitoring, gets upstream's 403. Skipped when kubectl is not on
// PATH.
func TestKubectlGetRawMetrics(t *testing.T) {
	c, _ := startNodes(t, 1)
	k := newKubectl(t, c)
	before, lines := createdPodTemplates(t, k)
	for _, want := range []string{
		"# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
		"# TYPE apiserver_request_total counter",
	} {
		if !strings.Contains(strings.Join(lines, "\n"), want) {
			t.Errorf("kubectl get --raw /metrics | grep apiserver_request_total lacks %q:\n%s", want, strings.Join(lines, "\n"))
		}
	}
	const sent = 3
	for i := range sent {
		name := fmt.Sprintf("counted-%d", i)
		if r := k.run(t, podTemplateYAML(name), "create", "-f", "-"); r.err != nil || r.stdout != "podtemplate/"+name+" created\n" {
			t.Fatalf("kubectl create -f - (%s): %v %q %q", name, r.err, r.stdout, r.stderr)
		}
	}
	after, lines := createdPodTemplates(t, k)
	if after-before != sent {
		t.Errorf("apiserver_request_total of PodTemplates created went from %v to %v, want +%d:\n%s", before, after, sent, strings.Join(lines, "\n"))
	}
	student := &kubectl{bin: k.bin, kubeconfig: c.StudentKubeconfig, home: t.TempDir()}
	const forbidden = `Error from server (Forbidden): forbidden: User "student" cannot get path "/metrics"` + "\n"
	if got := student.mustFail(t, "get", "--raw", "/metrics"); got != forbidden {
		t.Errorf("kubectl get --raw /metrics as the student: stderr %q, want %q", got, forbidden)
	}
}
