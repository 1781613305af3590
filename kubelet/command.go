package kubelet

import (
	"fmt"
	"path"
	"strings"
	"time"
)

// This file is kubesim's model of a container's command line: no process
// runs, but a command line made of the programs below is played as if
// it ran, when the container starts: what it writes goes to the
// container's log, and its end (when, and with which exit code) is the
// container's. The programs (command_programs.go, command_net.go):
//
//	echo [-n] [-e] words      printf FORMAT [args]     sleep N (or inf)
//	exit [N]   true   false   :   date   hostname   set -e / set -x
//	sh -c SCRIPT (and bash, ash, /bin/sh ...; see shell.go)
//	wget / curl / nc of a Service's DNS name (command_net.go)
//	sleep infinity, tail -f /dev/null: run until stopped
//
// A program kubesim does not know, or a shell construct its shell does
// not read, runs until the container is stopped, and the log says so.

// simulatedPrograms is what the log line of an unknown program lists.
const simulatedPrograms = "echo, printf, sleep, exit, true, false, date, hostname, sh -c of those (with ;, && and ||), and wget, curl and nc of a Service's name"

// commandRun is what a container's command line does in kubesim's
// model, in base (unscaled) durations from the container's start.
type commandRun struct {
	// simulated: the container has a command line and kubesim played it;
	// false: it has none (the image's default program runs until it is
	// stopped, as before this model).
	simulated bool
	lines     []runLine
	exits     bool // it ends on its own, after after, with code
	after     time.Duration
	code      int32
}

// runLine is one line a command line wrote, at an offset from the start.
type runLine struct {
	at   time.Duration
	text string
}

// runEnv is what a command line sees: the container and its pod, the
// time it starts, its environment, and the cluster's Services.
type runEnv struct {
	container string
	namespace string
	hostname  string
	start     time.Time
	scale     func(time.Duration) time.Duration // base to simulated
	env       map[string]string
	services  serviceLookup // nil: no Service can be found
}

// getenv is the value of an environment variable ("" if unset).
func (e *runEnv) getenv(name string) string {
	if name == "HOSTNAME" {
		return e.hostname
	}
	return e.env[name]
}

// interp plays one command line.
type interp struct {
	e       *runEnv
	t       time.Duration // time since the start (base)
	status  int32         // $?
	out     []runLine
	partial string // output not ended by a newline yet
	forever bool   // it reached something that runs until stopped
	exited  bool   // the shell under way ran exit (or exec)
	errexit bool   // set -e
	xtrace  bool   // set -x
}

// runCommandLine plays argv (the container's command and args) in env.
func runCommandLine(e *runEnv, argv []string) commandRun {
	if len(argv) == 0 {
		return commandRun{}
	}
	in := &interp{e: e}
	in.exec(argv)
	in.flush()
	r := commandRun{simulated: true, lines: in.out}
	if !in.forever {
		r.exits, r.after, r.code = true, in.t, in.status&0xff
	}
	return r
}

// stopped reports whether nothing more runs in the shell under way.
func (in *interp) stopped() bool { return in.forever || in.exited }

// write writes s to the output; each line ends at the current time.
func (in *interp) write(s string) {
	s = in.partial + s
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			break
		}
		in.out = append(in.out, runLine{at: in.t, text: s[:i]})
		s = s[i+1:]
	}
	in.partial = s
}

func (in *interp) writeln(s string) { in.write(s + "\n") }

// flush writes a last line that has no newline.
func (in *interp) flush() {
	if in.partial != "" {
		in.out = append(in.out, runLine{at: in.t, text: in.partial})
		in.partial = ""
	}
}

// runForever ends the run: the container runs until it is stopped.
func (in *interp) runForever() { in.forever = true }

// notSimulated runs what kubesim does not simulate: one honest line in
// the log, then the container runs until it is stopped.
func (in *interp) notSimulated(what string) {
	in.flush()
	in.writeln(fmt.Sprintf("kubesim: container %s runs %s, which kubesim does not simulate: it runs until it is stopped (kubesim simulates %s)",
		in.e.container, what, simulatedPrograms))
	in.runForever()
}

// exec runs one program with its arguments, as a process of the
// container (the first one) or of its shell.
func (in *interp) exec(argv []string) {
	if len(argv) == 0 {
		return
	}
	name := path.Base(argv[0])
	switch name {
	case "busybox":
		in.exec(argv[1:])
		return
	case "exec":
		in.exec(argv[1:])
		in.exited = true
		return
	case "sh", "bash", "ash", "dash":
		in.shell(argv)
		return
	}
	if p, ok := programs[name]; ok {
		p(in, argv[1:])
		return
	}
	in.notSimulated(fmt.Sprintf("%q", strings.Join(argv, " ")))
}

// shell runs "sh [-e] [-x] -c SCRIPT [name args...]": the script in a
// shell of its own (its exit ends that shell only). A shell without -c
// reads a script file or its input: not simulated.
func (in *interp) shell(argv []string) {
	script, errexit, xtrace, ok := shellFlags(argv[1:])
	if !ok {
		in.notSimulated(fmt.Sprintf("%q", strings.Join(argv, " ")))
		return
	}
	cmds, err := parseScript(script, in.e.getenv)
	if err != nil {
		in.writeln(err.Error())
		in.status = 2
		return
	}
	saved := [2]bool{in.errexit, in.xtrace}
	in.errexit, in.xtrace = errexit, xtrace
	in.runList(cmds)
	in.exited = false
	in.errexit, in.xtrace = saved[0], saved[1]
}

// shellFlags reads sh's options: -c (the script is the first operand),
// -e, -x, and their combinations (-ec).
func shellFlags(args []string) (script string, errexit, xtrace, ok bool) {
	hasC := false
	for i, a := range args {
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			if hasC && a != "--" {
				return a, errexit, xtrace, true
			}
			if a == "--" && hasC && i+1 < len(args) {
				return args[i+1], errexit, xtrace, true
			}
			return "", false, false, false
		}
		for _, f := range a[1:] {
			switch f {
			case 'c':
				hasC = true
			case 'e':
				errexit = true
			case 'x':
				xtrace = true
			default:
				return "", false, false, false
			}
		}
	}
	return "", false, false, false
}

// runList runs a script's commands as sh does: "a && b" runs b if a
// succeeded, "a || b" if it failed; with set -e a failure that is not
// tested by && or || ends the shell.
func (in *interp) runList(cmds []shellCommand) {
	for i, c := range cmds {
		if in.stopped() {
			return
		}
		if c.unsupported != "" {
			in.notSimulated("a script with " + c.unsupported)
			return
		}
		if c.op == "&&" && in.status != 0 || c.op == "||" && in.status == 0 {
			continue
		}
		if in.xtrace {
			in.writeln("+ " + strings.Join(c.words, " "))
		}
		in.exec(c.words)
		lastOfAndOr := i+1 == len(cmds) || cmds[i+1].op == ""
		if in.errexit && in.status != 0 && lastOfAndOr {
			in.exited = true
		}
	}
}
