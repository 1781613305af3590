package kubelet

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// plan is how one instance of a container behaves once started: what its
// command line writes, and whether, when and how it exits. Precedence:
// kubesim.io/exit-after, when set for the container, decides when it
// exits (whatever its command line does), and kubesim.io/exit-code, when
// set, its exit code; otherwise its command line decides. An init
// container whose command line does not end (or that has none) exits
// with 0 as soon as it has started, as kubesim's init containers always
// did.
type plan struct {
	run   commandRun
	exits bool
	after time.Duration // base (unscaled), from the start
	code  int32
	// byAnnotation: the exit is kubesim.io/exit-after's (its log ends
	// with kubesim's line saying so).
	byAnnotation bool
}

// planFor plays c's command line for an instance starting at start (a
// Service lookup may read from the API server) and applies the
// annotations.
func (m *podMachine) planFor(c *container, start time.Time) plan {
	env := &runEnv{
		container: c.spec.Name,
		namespace: m.pod.Namespace,
		hostname:  podHostname(m.pod),
		start:     start,
		scale:     m.scale.delay,
		env:       envWithConfig(c),
		services:  m.rt.services,
	}
	p := plan{run: runCommandLine(env, commandLine(&c.spec, env.env))}
	switch {
	case c.b.exitSet:
		p.exits, p.after, p.code, p.byAnnotation = true, c.b.exitAfter, c.b.exitCode, true
	case p.run.exits:
		p.exits, p.after, p.code = true, p.run.after, p.run.code
	case c.init:
		p.exits = true
		if p.run.simulated {
			p.run.lines = append(p.run.lines, runLine{text: fmt.Sprintf(
				"kubesim: init container %s is taken to have succeeded at once, as kubesim does with an init container whose command does not end", c.spec.Name)})
		}
	}
	if c.b.codeSet {
		p.code = c.b.exitCode
	}
	return p
}

// commandLine is what the container runs: its command and args; args
// alone are run by the image's entrypoint (BusyBox's has none), unless
// they are only options to the image's own program ("--port=80"), which
// then runs as if there were no command line.
func commandLine(c *corev1.Container, env map[string]string) []string {
	argv := append(append([]string(nil), c.Command...), c.Args...)
	if len(c.Command) == 0 && len(argv) > 0 && strings.HasPrefix(argv[0], "-") {
		return nil
	}
	for i, a := range argv {
		argv[i] = expandRefs(a, env)
	}
	return argv
}

var varRef = regexp.MustCompile(`\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)`)

// expandRefs replaces $(NAME) with the container's variable NAME, as the
// kubelet does in command and args ($$ is a $; an unknown name stays as
// written).
func expandRefs(s string, env map[string]string) string {
	return varRef.ReplaceAllStringFunc(s, func(m string) string {
		if m == "$$" {
			return "$"
		}
		if v, ok := env[m[2:len(m)-1]]; ok {
			return v
		}
		return m
	})
}

// podHostname is the pod's hostname: spec.hostname, else its name.
func podHostname(pod *corev1.Pod) string {
	if pod.Spec.Hostname != "" {
		return pod.Spec.Hostname
	}
	return pod.Name
}
