package kubelet

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeServices is a serviceLookup over a fixed table ("ns/name").
type fakeServices map[string]serviceInfo

func (f fakeServices) lookupService(ns, name string) (serviceInfo, error) {
	if ns == "broken" {
		return serviceInfo{}, errors.New("the API server is down")
	}
	return f[ns+"/"+name], nil
}

var testServices = fakeServices{
	"default/web":    {found: true, clusterIP: "10.96.0.20", ports: []int32{80}, ready: []string{"10.244.1.5"}},
	"default/empty":  {found: true, clusterIP: "10.96.0.21", ports: []int32{80}},
	"shop/db":        {found: true, clusterIP: "10.96.0.22", ports: []int32{5432}, ready: []string{"10.244.2.3"}},
	"default/hl":     {found: true, clusterIP: "None", ports: []int32{80}, ready: []string{"10.244.1.9"}},
	"default/hlnone": {found: true, clusterIP: "None", ports: []int32{80}},
	"default/ext":    {found: true, externalName: true},
}

// playT plays argv in pod "p" of namespace default, container "c".
func playT(argv ...string) commandRun {
	e := &runEnv{container: "c", namespace: "default", hostname: "p", start: t0,
		scale: func(d time.Duration) time.Duration { return d }, env: map[string]string{"GREETING": "hi there"}, services: testServices}
	return runCommandLine(e, argv)
}

// render is a run as "offset text" lines and its end ("exit N after D",
// or "runs").
func render(r commandRun) []string {
	var out []string
	for _, l := range r.lines {
		out = append(out, l.at.String()+" "+l.text)
	}
	if r.exits {
		return append(out, "exit "+strconv.Itoa(int(r.code))+" after "+r.after.String())
	}
	return append(out, "runs")
}

const unknownTail = ", which kubesim does not simulate: it runs until it is stopped (kubesim simulates " + simulatedPrograms + ")"

func TestCommandLine(t *testing.T) {
	sh := func(script string) []string { return []string{"/bin/sh", "-c", script} }
	tests := []struct {
		name string
		argv []string
		want []string
	}{
		{"echo", []string{"echo", "hi"}, []string{"0s hi", "exit 0 after 0s"}},
		{"echo -n and -e", sh(`echo -n a; echo -e 'b\tc\nd'; echo '\n'`), []string{"0s ab\tc", "0s d", `0s \n`, "exit 0 after 0s"}},
		{"printf", sh(`printf '%s=%d\n' a 1 b 2; printf 'no newline'`), []string{"0s a=1", "0s b=2", "0s no newline", "exit 0 after 0s"}},
		{"sleep then echo", sh("sleep 5; echo done; sleep 1m"), []string{"5s done", "exit 0 after 1m5s"}},
		{"sleep fractions", []string{"sleep", "0.5", "1s"}, []string{"exit 0 after 1.5s"}},
		{"sleep infinity", sh("echo up; sleep infinity"), []string{"0s up", "runs"}},
		{"tail -f", []string{"tail", "-f", "/dev/null"}, []string{"runs"}},
		{"bad sleep", []string{"sleep", "x"}, []string{"0s sleep: invalid number 'x'", "exit 1 after 0s"}},
		{"exit", sh("echo a; exit 3; echo b"), []string{"0s a", "exit 3 after 0s"}},
		{"exit 256 wraps", sh("exit 257"), []string{"exit 1 after 0s"}},
		{"exit without code keeps $?", sh("false; exit"), []string{"exit 1 after 0s"}},
		{"true false", []string{"false"}, []string{"exit 1 after 0s"}},
		{"and or", sh("false && echo no || echo yes; true || echo no2"), []string{"0s yes", "exit 0 after 0s"}},
		{"last status", sh("echo a && false"), []string{"0s a", "exit 1 after 0s"}},
		{"set -e", sh("set -e; false || true; false; echo never"), []string{"exit 1 after 0s"}},
		{"sh -ec", []string{"sh", "-ec", "false && true; echo reached; false; echo never"}, []string{"0s reached", "exit 1 after 0s"}},
		{"set -x", sh("set -x; echo hi"), []string{"0s + echo hi", "0s hi", "exit 0 after 0s"}},
		{"nested sh", sh(`sh -c 'exit 4'; echo "got $GREETING"`), []string{"0s got hi there", "exit 0 after 0s"}},
		{"variables", sh(`echo $GREETING ${HOSTNAME} "[$NOPE]" '$GREETING'`), []string{"0s hi there p [] $GREETING", "exit 0 after 0s"}},
		{"quotes and comments", sh("echo \"a  b\" c\\ d # not this\necho 'x;y'"), []string{"0s a  b c d", "0s x;y", "exit 0 after 0s"}},
		{"2>&1 is fine", sh("echo hi 2>&1"), []string{"0s hi", "exit 0 after 0s"}},
		{"exec", sh("exec echo hi; echo never"), []string{"0s hi", "exit 0 after 0s"}},
		{"busybox applet", []string{"busybox", "echo", "hi"}, []string{"0s hi", "exit 0 after 0s"}},
		{"hostname and date", sh("hostname; date"), []string{"0s p", "0s Sun Mar  1 12:00:00 UTC 2026", "exit 0 after 0s"}},
		{"unterminated quote", sh("echo 'oops"), []string{"0s sh: syntax error: unterminated quoted string", "exit 2 after 0s"}},
		{"unknown program", []string{"nginx", "-g", "daemon off;"}, []string{`0s kubesim: container c runs "nginx -g daemon off;"` + unknownTail, "runs"}},
		{"unknown after output", sh("echo starting; sleep 2; python app.py"), []string{"0s starting", `2s kubesim: container c runs "python app.py"` + unknownTail, "runs"}},
		{"pipe", sh("echo a; echo b | grep b"), []string{"0s a", "0s kubesim: container c runs a script with a pipe (|)" + unknownTail, "runs"}},
		{"loop", sh("while true; do echo tick; sleep 1; done"), []string{`0s kubesim: container c runs "while true"` + unknownTail, "runs"}},
		{"command substitution", sh("echo $(date)"), []string{"0s kubesim: container c runs a script with command substitution $(...)" + unknownTail, "runs"}},
		{"sh without -c", []string{"sh"}, []string{`0s kubesim: container c runs "sh"` + unknownTail, "runs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			diffLines(t, strings.Join(tt.argv, " "), render(playT(tt.argv...)), tt.want)
		})
	}
}

func TestNetworkPrograms(t *testing.T) {
	tests := []struct {
		name string
		argv []string
		want []string
	}{
		{"wget of a Service with ready endpoints (helm create's test)", []string{"wget", "web:80"},
			[]string{"0s Connecting to web:80 (10.96.0.20:80)", "0s saving to 'index.html'", "0s 'index.html' saved", "exit 0 after 0s"}},
		{"wget -qO-", []string{"wget", "-qO-", "http://web.default.svc.cluster.local/x"}, []string{"exit 0 after 0s"}},
		{"wget -O- of another namespace", []string{"wget", "-O-", "http://db.shop:5432"},
			[]string{"0s Connecting to db.shop:5432 (10.96.0.22:5432)", "0s writing to stdout", "0s written to stdout", "exit 0 after 0s"}},
		{"wget --spider of a file", []string{"wget", "--spider", "web.default.svc/healthz"},
			[]string{"0s Connecting to web.default.svc (10.96.0.20:80)", "0s remote file exists", "exit 0 after 0s"}},
		{"wget of a Service without endpoints", []string{"wget", "empty"},
			[]string{"0s Connecting to empty (10.96.0.21:80)", "0s wget: can't connect to remote host (10.96.0.21): Connection refused", "exit 1 after 0s"}},
		{"wget on a port the Service lacks", []string{"wget", "-q", "web:8080"},
			[]string{"0s wget: can't connect to remote host (10.96.0.20): Connection refused", "exit 1 after 0s"}},
		{"wget of no Service", []string{"wget", "nope:80"}, []string{"0s wget: bad address 'nope:80'", "exit 1 after 0s"}},
		{"wget when the lookup fails", []string{"wget", "x.broken.svc"}, []string{"0s wget: bad address 'x.broken.svc'", "exit 1 after 0s"}},
		{"headless with endpoints", []string{"wget", "-q", "--spider", "hl"}, []string{"exit 0 after 0s"}},
		{"headless without endpoints", []string{"wget", "-q", "hlnone"}, []string{"0s wget: bad address 'hlnone'", "exit 1 after 0s"}},
		{"wget outside the cluster", []string{"wget", "example.com"}, []string{`0s kubesim: container c runs "wget example.com" (kubesim's network has only Services)` + unknownTail, "runs"}},
		{"an IP address", []string{"wget", "10.96.0.20"}, []string{`0s kubesim: container c runs "wget 10.96.0.20" (kubesim's network has only Services)` + unknownTail, "runs"}},
		{"ExternalName", []string{"curl", "ext"}, []string{`0s kubesim: container c runs "curl ext" (kubesim's network has only Services)` + unknownTail, "runs"}},
		{"curl ok", []string{"curl", "-fsS", "-m", "5", "http://web"}, []string{"exit 0 after 0s"}},
		{"curl no name", []string{"curl", "http://nope/"}, []string{"0s curl: (6) Could not resolve host: nope", "exit 6 after 0s"}},
		{"curl -s is silent", []string{"curl", "-s", "empty"}, []string{"exit 7 after 0s"}},
		{"curl -sS refused", []string{"curl", "-sS", "empty"},
			[]string{"0s curl: (7) Failed to connect to empty port 80 after 0 ms: Couldn't connect to server", "exit 7 after 0s"}},
		{"nc -zv", []string{"nc", "-zv", "db.shop", "5432"}, []string{"0s db.shop (10.96.0.22:5432) open", "exit 0 after 0s"}},
		{"nc refused", []string{"nc", "-z", "empty", "80"}, []string{"0s nc: can't connect to remote host (10.96.0.21): Connection refused", "exit 1 after 0s"}},
		{"nc bad address", []string{"nc", "-z", "nope", "80"}, []string{"0s nc: bad address 'nope'", "exit 1 after 0s"}},
		{"init-style wait", []string{"sh", "-c", "sleep 2; wget -q -T 1 web && echo up || echo down"}, []string{"2s up", "exit 0 after 2s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			diffLines(t, strings.Join(tt.argv, " "), render(playT(tt.argv...)), tt.want)
		})
	}
}

func TestParseScriptErrors(t *testing.T) {
	for _, s := range []string{`echo "a`, `echo 'a`, `echo ${A`} {
		if _, err := parseScript(s, func(string) string { return "" }); err == nil {
			t.Errorf("parseScript(%q): no error, want sh's syntax error", s)
		}
	}
}
