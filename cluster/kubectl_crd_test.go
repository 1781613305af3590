package cluster_test

import (
	"strings"
	"testing"
)

// TestKubectlCustomResources walks a learner through a CRD with the real
// kubectl, without --validate=false: apply the CRD, wait for it to be
// established, apply a widget, watch widgets while one is patched,
// explain the schema, see widgets the schema and the server's strict
// field validation reject, and delete the
// CRD, which deletes its widgets. The steps build on each other; the
// files are cluster/testdata's (the server-chain scenario uses them too).
func TestKubectlCustomResources(t *testing.T) {
	t.Parallel()
	c := mustStartCluster(t, "")
	k := newKubectl(t, c)
	crd, widget, invalid := "testdata/crd.yaml", "testdata/widget.yaml", "testdata/widget-invalid.yaml"

	steps := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"apply the CRD", func(t *testing.T) {
			if got, want := k.must(t, "apply", "-f", crd), "customresourcedefinition.apiextensions.k8s.io/widgets.example.com created\n"; got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		}},
		{"wait for Established", func(t *testing.T) {
			got := k.must(t, "wait", "--for=condition=Established", "crd/widgets.example.com", "--timeout=60s")
			if want := "customresourcedefinition.apiextensions.k8s.io/widgets.example.com condition met\n"; got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		}},
		{"apply a widget", func(t *testing.T) {
			// Discovery may lag the CRD by a moment: retry until kubectl
			// knows the kind.
			eventually(t, "widget created", func() (bool, string) {
				r := k.run(t, "", "apply", "-f", widget)
				return r.err == nil && r.stdout == "widget.example.com/x created\n" && r.stderr == "", r.stdout + r.stderr
			})
		}},
		{"get widgets shows the printer columns", func(t *testing.T) {
			rows := table(k.must(t, "get", "widgets"))
			if len(rows) != 2 || joined(rows[0]) != "NAME SIZE COLOR AGE" || firstFields(rows[1], 3) != "x 3 blue" {
				t.Errorf("got %q, want header NAME SIZE COLOR AGE and x 3 blue (the default color)", rows)
			}
		}},
		{"get widgets -w sees a merge patch", func(t *testing.T) {
			w := k.start(t, "get", "widgets", "-w")
			w.waitFor(t, "the widget", func(lines []string) bool { return len(lines) >= 2 })
			if got, want := k.must(t, "patch", "widget", "x", "--type=merge", "-p", `{"spec":{"size":5}}`), "widget.example.com/x patched\n"; got != want {
				t.Errorf("patch: got %q, want %q", got, want)
			}
			w.waitFor(t, "the patched widget", func(lines []string) bool {
				return len(lines) >= 3 && firstFields(strings.Fields(lines[len(lines)-1]), 3) == "x 5 blue"
			})
			if got := k.must(t, "get", "widget", "x", "-o", "jsonpath={.metadata.generation}"); got != "2" {
				t.Errorf("generation after the patch: got %q, want 2", got)
			}
		}},
		{"explain widget.spec", func(t *testing.T) {
			// kubectl explain finds the kind through its own discovery
			// (cached on disk) and the OpenAPI v3 index, which may lag
			// the CRD as discovery did for apply: retry until it knows
			// the kind, then check what it says.
			var out string
			eventually(t, "kubectl explain knows widget", func() (bool, string) {
				r := k.run(t, "", "explain", "widget.spec")
				out = r.stdout
				return r.err == nil && r.stderr == "", r.stdout + r.stderr
			})
			for _, want := range []string{"GROUP:      example.com", "KIND:       Widget", "VERSION:    v1", "FIELD: spec <Object>",
				"What the widget should be.", "size\t<integer> -required-", "How big the widget is, from 1 to 10."} {
				if !strings.Contains(out, want) {
					t.Errorf("explain lacks %q:\n%s", want, out)
				}
			}
		}},
		{"a widget the schema rejects", func(t *testing.T) {
			stderr := k.mustFail(t, "apply", "-f", invalid)
			for _, want := range []string{`The Widget "bad" is invalid:`, `spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10`,
				`spec.color: Unsupported value: "pink": supported values: "red", "green", "blue"`} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
		}},
		{"an unknown field is rejected by the server (fieldValidation=Strict)", func(t *testing.T) {
			// kubectl finds fieldValidation among the parameters of the
			// CRD's OpenAPI document and lets the server validate.
			file := mustWriteFile(t, "shape.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: round\n  namespace: default\nspec:\n  size: 1\n  shape: round\n")
			stderr := k.mustFail(t, "apply", "-f", file)
			if want := `Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.shape"`; !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		}},
		{"delete the CRD deletes its widgets", func(t *testing.T) {
			if got, want := k.must(t, "delete", "crd", "widgets.example.com"), "customresourcedefinition.apiextensions.k8s.io \"widgets.example.com\" deleted\n"; got != want {
				t.Errorf("got %q, want %q", got, want)
			}
			// kubectl waited for the CRD to go, which its finalizer allows
			// once the widgets are deleted; the server stops serving them
			// when its CRD watch sees the deletion, a moment later.
			eventually(t, "widgets no longer served", func() (bool, string) {
				r := k.run(t, "", "get", "--raw", "/apis/example.com/v1/namespaces/default/widgets")
				return r.err != nil && strings.Contains(r.stderr, "NotFound"), r.stdout + r.stderr
			})
		}},
	}
	for _, s := range steps {
		if !t.Run(s.name, s.run) {
			return
		}
	}
}
