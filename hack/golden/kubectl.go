package main

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"
)

// kubectl runs the kubectl binary bin against one cluster: r's
// environment names the cluster's admin kubeconfig, and r's directory
// holds the manifests, so that a command line names them as a user
// would (-f pod.yaml).
type kubectl struct {
	r   runner
	bin string
}

// run runs kubectl with args.
func (k kubectl) run(ctx context.Context, args ...string) capture {
	return k.r.run(ctx, "kubectl", k.bin, args...)
}

// must runs kubectl with args and fails unless it exits 0: for the
// commands that prepare what is captured.
func (k kubectl) must(ctx context.Context, args ...string) (capture, error) {
	c := k.run(ctx, args...)
	if c.exit != 0 {
		return c, fmt.Errorf("%s: exit %d: %v %s", c.cmdline, c.exit, c.err, strings.TrimSpace(c.stderr))
	}
	return c, nil
}

// captureKubectl creates the objects of kinds, waits for the cluster to
// settle, then writes what kubectl shows of them under kubectl/.
func captureKubectl(ctx context.Context, k kubectl, w *writer) error {
	if err := createObjects(ctx, k, w); err != nil {
		return err
	}
	for _, kd := range kinds {
		if err := captureKind(ctx, k, kd, w); err != nil {
			return err
		}
	}
	for _, kd := range kinds {
		text := k.watch(ctx, kd)
		if err := ctx.Err(); err != nil {
			return err // interrupted: what was cut short is no output
		}
		if err := w.write(path.Join("kubectl", kd.dir, "get-watch.txt"), text); err != nil {
			return err
		}
	}
	return captureDiscovery(ctx, k, w)
}

// createObjects applies each kind's manifest (its output is captured),
// waits for the object to be ready where the kind says how, then for the
// cluster to settle.
func createObjects(ctx context.Context, k kubectl, w *writer) error {
	// A pod needs its namespace's service account, which a controller
	// creates after the API server is up, and a node to run on.
	if err := poll(ctx, k, "the service account default", []string{"get", "serviceaccount", "default", "-o", "name"}, 1); err != nil {
		return err
	}
	if _, err := k.must(ctx, "wait", "--for", "condition=Ready", "--timeout", "2m", "nodes", "--all"); err != nil {
		return err
	}
	for _, kd := range kinds {
		c, err := k.must(ctx, "apply", "-f", kd.manifest)
		if err != nil {
			return err
		}
		if err := w.write(path.Join("kubectl", kd.dir, "apply.txt"), c.render()); err != nil {
			return err
		}
		if kd.ready == "" {
			continue
		}
		if _, err := k.must(ctx, "wait", "--for", kd.ready, "--timeout", "2m", kd.resource+"/"+kd.name); err != nil {
			return err
		}
	}
	return settle(ctx, k)
}

// settle waits until what the captures show has stopped changing: every
// pod started and its events recorded, the Deployment's scaling event
// recorded, both of its pods among the Service's endpoints.
func settle(ctx context.Context, k kubectl) error {
	checks := []struct {
		what string
		args []string
		want int // lines of output
	}{
		{"3 Started events", []string{"get", "events", "--field-selector", "reason=Started", "-o", "name"}, 3},
		{"1 ScalingReplicaSet event", []string{"get", "events", "--field-selector", "reason=ScalingReplicaSet", "-o", "name"}, 1},
		{"2 endpoints of frontend", []string{"get", "endpoints", "frontend", "-o", `jsonpath={range .subsets[*].addresses[*]}{.ip}{"\n"}{end}`}, 2},
	}
	for _, c := range checks {
		if err := poll(ctx, k, c.what, c.args, c.want); err != nil {
			return err
		}
	}
	return nil
}

// poll runs kubectl with args until it prints want lines, for at most two
// minutes.
func poll(ctx context.Context, k kubectl, what string, args []string, want int) error {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		c := k.run(ctx, args...)
		got := len(strings.Fields(c.stdout))
		if c.exit == 0 && got == want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("waiting for %s: %s printed %d, last: %q %q", what, c.cmdline, got, c.stdout, c.stderr)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// captureKind writes what kubectl shows of one kind: its list (default
// and wide), its object as YAML, the object described, the kind and one
// nested field explained, and the refusal of an invalid object.
func captureKind(ctx context.Context, k kubectl, kd kind, w *writer) error {
	outputs := []struct {
		file string
		args []string
	}{
		{"get.txt", []string{"get", kd.resource}},
		{"get-wide.txt", []string{"get", kd.resource, "-o", "wide"}},
		{"get-yaml.txt", []string{"get", kd.resource, kd.name, "-o", "yaml"}},
		{"describe.txt", []string{"describe", kd.resource, kd.name}},
		{"explain.txt", []string{"explain", kd.resource}},
		{"explain-" + kd.field + ".txt", []string{"explain", kd.resource + "." + kd.field}},
		{"apply-invalid.txt", []string{"apply", "-f", kd.invalid}},
	}
	for _, o := range outputs {
		c := k.run(ctx, o.args...)
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := w.write(path.Join("kubectl", kd.dir, o.file), c.render()); err != nil {
			return err
		}
	}
	return nil
}

// captureDiscovery writes what kubectl finds of the API: the resources,
// the versions, and the discovery and OpenAPI v3 documents as served.
func captureDiscovery(ctx context.Context, k kubectl, w *writer) error {
	outputs := []struct {
		file string
		args []string
	}{
		{"api-resources.txt", []string{"api-resources"}},
		{"version.txt", []string{"version"}},
		{"raw-api.txt", []string{"get", "--raw", "/api"}},
		{"raw-apis.txt", []string{"get", "--raw", "/apis"}},
		{"raw-openapi-v3.txt", []string{"get", "--raw", "/openapi/v3"}},
	}
	for _, o := range outputs {
		c := k.run(ctx, o.args...)
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := w.write(path.Join("kubectl", o.file), c.render()); err != nil {
			return err
		}
	}
	return nil
}
