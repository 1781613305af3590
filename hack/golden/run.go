package main

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/kubesim/kubesim/hack/internal/kubesimserve"
)

// manifests are the objects the kubectl part creates, and the invalid
// ones the API server must refuse, one of each kind.
//
//go:embed manifests/*.yaml
var manifests embed.FS

// tempPrefix names the temporary directory of a run; normalize.go knows
// it, to take its paths out of the outputs.
const tempPrefix = "kubesim-golden-"

// run captures the parts o asks for into o.out, or with o.from only
// normalizes an earlier capture, and says on stdout what it wrote.
func run(ctx context.Context, o options) error {
	start := time.Now()
	w, err := newWriter(o.out, o.raw)
	if err != nil {
		return err
	}
	if o.from != "" {
		err = renormalize(o.from, w)
	} else {
		err = captureAll(ctx, o, w)
	}
	if err != nil {
		return err
	}
	fmt.Printf("golden: %d files in %s (%s)\n", w.count(), o.out, time.Since(start).Round(time.Second))
	return nil
}

// captureAll runs the parts of o in a temporary directory of its own,
// removed at the end.
func captureAll(ctx context.Context, o options, w *writer) error {
	bin, err := filepath.Abs(o.kubesim)
	if err != nil {
		return err
	}
	kubectlBin, err := exec.LookPath(o.kubectl)
	if err != nil {
		return err
	}
	if kubectlBin, err = filepath.Abs(kubectlBin); err != nil {
		return err
	}
	base, err := os.MkdirTemp("", tempPrefix)
	if err != nil {
		return err
	}
	defer os.RemoveAll(base)
	env := environment(base)
	k := kubesim{r: runner{env: env, dir: base, timeout: o.timeout}, bin: bin}
	if o.parts["cli"] {
		if err := captureCLI(ctx, k, w); err != nil {
			return err
		}
	}
	if o.parts["kubectl"] {
		if err := withServe(ctx, bin, kubectlBin, base, env, o.timeout, w); err != nil {
			return err
		}
	}
	if o.parts["scenarios"] {
		return captureScenarios(ctx, k, o.scenarios, w)
	}
	return nil
}

// environment is the whole environment of every command: nothing of the
// caller's but PATH, so that its locale, kubeconfig or terminal change
// nothing; temporary files and caches go under base. kubesim runs on one
// OS thread at a time (GOMAXPROCS=1): at speed 0 its components race
// the scenario's steps, and with one thread the same run wins them far
// more often (a pod's last stages printed or not before the play ends);
// what it prints is the same, and the shared machine is spared.
func environment(base string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(base, "home"),
		"TMPDIR=" + base,
		"LC_ALL=C.UTF-8",
		"TZ=UTC",
		"TERM=dumb",
		"NO_COLOR=1",
		"GOMAXPROCS=1",
	}
}

// withServe starts kubesim serve with its data under base, writes its
// banner and the kubectl part, and stops it.
func withServe(ctx context.Context, bin, kubectlBin, base string, env []string, timeout time.Duration, w *writer) error {
	stderr, err := os.Create(filepath.Join(base, "serve.stderr"))
	if err != nil {
		return err
	}
	defer stderr.Close()
	dataDir := filepath.Join(base, "serve")
	s, err := kubesimserve.Start(ctx, bin, dataDir, nil, env, stderr)
	if err != nil {
		return err
	}
	defer s.Stop()
	if err := w.write("cli/serve.txt", serveOutput(dataDir, s.Banner)); err != nil {
		return err
	}
	dir := filepath.Join(base, "manifests")
	if err := writeManifests(dir); err != nil {
		return err
	}
	kenv := append(env[:len(env):len(env)], "KUBECONFIG="+s.Kubeconfig(), "KUBECACHEDIR="+filepath.Join(base, "kubectl-cache"))
	return captureKubectl(ctx, kubectl{r: runner{env: kenv, dir: dir, timeout: timeout}, bin: kubectlBin}, w)
}

// writeManifests copies the embedded manifests into dir.
func writeManifests(dir string) error {
	sub, err := fs.Sub(manifests, "manifests")
	if err != nil {
		return err
	}
	return os.CopyFS(dir, sub)
}
