package controllers_test

import (
	"context"
	"strings"
	"testing"
)

// netManifests are an IngressClass marked default, an Ingress with TLS
// and two hosts, and a NetworkPolicy, as a course writes them.
const netManifests = `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
  annotations:
    ingressclass.kubernetes.io/is-default-class: "true"
spec:
  controller: k8s.io/ingress-nginx
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
spec:
  ingressClassName: nginx
  tls:
  - hosts: [a.example.com]
    secretName: tls
  rules:
  - host: a.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
  - host: b.example.com
    http:
      paths:
      - {path: /api, pathType: Exact, backend: {service: {name: api, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: deny
spec:
  podSelector: {matchLabels: {app: web}}
  ingress:
  - from: [{podSelector: {matchLabels: {role: fe}}}]
    ports: [{port: 80}]
`

// TestKubectlNetworkingComponentStatusesEventsV1: kubectl applies
// ingress objects and prints them with upstream's columns, a bad Ingress
// gets upstream's 422, the NetworkPolicy's port is defaulted to TCP;
// `kubectl get cs` lists the three components healthy with the
// deprecation warning; events.k8s.io/v1 serves the core events (a pod's
// Scheduled event, selected by regarding.name). Skipped when kubectl is
// not on PATH.
func TestKubectlNetworkingComponentStatusesEventsV1(t *testing.T) {
	c, _ := startCluster(t)
	k := newKubectl(t, c)
	if r := k.run(t, netManifests, "apply", "-f", "-"); r.err != nil || r.stderr != "" {
		t.Fatalf("kubectl apply: %v\n%s%s", r.err, r.stdout, r.stderr)
	}
	got := table(k.must(t, "get", "ingress,ingressclass,netpol"))
	want := [][]string{
		{"ingress.networking.k8s.io/web", "nginx", "a.example.com,b.example.com", "80,", "443"},
		{"ingressclass.networking.k8s.io/nginx", "(default)", "k8s.io/ingress-nginx", "<none>"},
		{"networkpolicy.networking.k8s.io/deny", "app=web"},
	}
	if len(got) != 3 {
		t.Fatalf("kubectl get ingress,ingressclass,netpol: %q", got)
	}
	for i, w := range want {
		row := got[i][1]
		if strings.Join(row[:len(row)-1], " ") != strings.Join(w, " ") {
			t.Errorf("kubectl get: row %q, want %q and the age", row, w)
		}
	}
	if p := k.must(t, "get", "netpol", "deny", "-o", "jsonpath={.spec.ingress[0].ports[0].protocol} {.spec.policyTypes}"); p != `TCP ["Ingress"]` {
		t.Errorf("the NetworkPolicy's defaults: %q, want TCP [\"Ingress\"]", p)
	}
	bad := "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: bad}\nspec:\n  rules:\n  - http:\n      paths: [{path: api, pathType: Prefix, backend: {service: {name: web}}}]\n"
	r := k.run(t, bad, "create", "-f", "-")
	const invalid = `The Ingress "bad" is invalid: ` + "\n* spec.rules[0].http.paths[0].path: Invalid value: \"api\": must be an absolute path\n* spec.rules[0].http.paths[0].backend: Required value: port name or number is required\n"
	if r.err == nil || r.stderr != invalid {
		t.Errorf("kubectl create of a bad Ingress: %v %q, want %q", r.err, r.stderr, invalid)
	}

	r = k.run(t, "", "get", "cs")
	if r.err != nil || r.stderr != "Warning: v1 ComponentStatus is deprecated in v1.19+\n" {
		t.Fatalf("kubectl get cs: %v\n%s%s", r.err, r.stdout, r.stderr)
	}
	wantCS := "NAME STATUS MESSAGE ERROR\nscheduler Healthy ok\ncontroller-manager Healthy ok\netcd-0 Healthy ok"
	if got := rowsText(table(r.stdout)[0]); got != wantCS {
		t.Errorf("kubectl get cs:\n%s\nwant\n%s", got, wantCS)
	}

	k.must(t, "run", "p", "--image=nginx")
	waitFor(t, "the pod's Scheduled event in events.k8s.io/v1", func(context.Context) (bool, error) {
		r := k.run(t, "", "get", "events.v1.events.k8s.io", "--field-selector=regarding.name=p,reason=Scheduled", "-o", "jsonpath={.items[*].reportingController} {.items[*].note}")
		return r.err == nil && strings.HasPrefix(r.stdout, "default-scheduler Successfully assigned default/p to "), nil
	})
	if rows := table(k.must(t, "get", "events.v1.events.k8s.io", "--field-selector=reason=Scheduled"))[0]; strings.Join(rows[0], " ") != "LAST SEEN TYPE REASON OBJECT MESSAGE" || rows[1][3] != "pod/p" {
		t.Errorf("kubectl get events.v1.events.k8s.io: %q, want core events' columns and pod/p", rows)
	}
}

// rowsText joins a table's rows, cells by a space, rows by a newline.
func rowsText(rows [][]string) string {
	var lines []string
	for _, r := range rows {
		lines = append(lines, strings.Join(r, " "))
	}
	return strings.Join(lines, "\n")
}
