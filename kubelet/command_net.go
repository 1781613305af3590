package kubelet

import (
	"fmt"
	"net"
	"path"
	"slices"
	"strconv"
	"strings"
)

// This file is wget, curl and nc in kubesim's model: they reach a
// Service by its DNS name, as a pod would through the cluster's DNS and
// kube-proxy. The name is read as the pod's resolver reads it (search
// path <namespace>.svc.cluster.local, svc.cluster.local, cluster.local):
// "web", "web.shop", "web.shop.svc", "web.shop.svc.cluster.local".
//
//   - A Service with ready endpoints answers: the connection succeeds
//     (for a headless Service, to its first ready endpoint).
//   - A ClusterIP Service without ready endpoints, or asked on a port it
//     does not have, refuses the connection (kube-proxy rejects it).
//   - A name of the cluster that is no Service (or a headless Service
//     without ready endpoints) is not found by DNS: "bad address".
//   - Any other host (an IP address, "example.com", an ExternalName
//     Service) is not simulated: the program runs until it is stopped.
//
// No data is transferred: wget writes what BusyBox's writes about the
// transfer, not the body; curl writes nothing on success (neither the
// body nor its progress meter).

// ClusterDomain is the DNS domain of kubesim's cluster, as the
// kubelet's clusterDomain setting.
const ClusterDomain = "cluster.local"

// serviceInfo is what a pod can learn of one Service through DNS and
// kube-proxy.
type serviceInfo struct {
	found        bool
	externalName bool
	clusterIP    string   // "None": headless
	ports        []int32  // the Service's ports
	ready        []string // the IP addresses of its ready endpoints
}

// serviceLookup finds the Service namespace/name for a container's
// network programs. It is called by the pod's machine when a container
// starts (a blocking API read); it must be safe for concurrent use.
type serviceLookup interface {
	lookupService(namespace, name string) (serviceInfo, error)
}

// dialOutcome is how a connection to host:port ends.
type dialOutcome int

const (
	dialConnected dialOutcome = iota + 1
	dialBadAddress
	dialRefused
	dialNotSimulated
)

// dial connects to host:port from the container's pod: the outcome, and
// the IP address it connected (or tried to connect) to.
func (in *interp) dial(host string, port int32) (dialOutcome, string) {
	ns, name, sure, ok := serviceName(host, in.e.namespace)
	if !ok {
		return dialNotSimulated, ""
	}
	var svc serviceInfo
	if in.e.services != nil {
		var err error
		if svc, err = in.e.services.lookupService(ns, name); err != nil {
			svc = serviceInfo{} // the lookup failed as DNS would
		}
	}
	switch {
	case !svc.found && sure:
		return dialBadAddress, ""
	case !svc.found || svc.externalName:
		return dialNotSimulated, ""
	case svc.clusterIP == "None" || svc.clusterIP == "":
		if len(svc.ready) == 0 {
			return dialBadAddress, ""
		}
		return dialConnected, svc.ready[0]
	case !slices.Contains(svc.ports, port) || len(svc.ready) == 0:
		return dialRefused, svc.clusterIP
	}
	return dialConnected, svc.clusterIP
}

// serviceName reads host as the pod's resolver would: the Service
// (namespace, name) it names; sure: only a Service can have that name
// (a bare name, or one ending in .svc or .svc.cluster.local), not a
// name outside the cluster. ok is false for IP addresses and other
// names.
func serviceName(host, podNamespace string) (ns, name string, sure, ok bool) {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "" || net.ParseIP(host) != nil {
		return "", "", false, false
	}
	if rest, cut := strings.CutSuffix(host, ".svc."+ClusterDomain); cut {
		host, sure = rest, true
	} else if rest, cut := strings.CutSuffix(host, ".svc"); cut {
		host, sure = rest, true
	}
	parts := strings.Split(host, ".")
	switch {
	case len(parts) == 1 && !sure:
		return podNamespace, parts[0], true, true
	case len(parts) == 2:
		return parts[1], parts[0], sure, true
	}
	return "", "", false, false
}

// target is where a URL or host:port argument points.
type target struct {
	hostport string // as written: "web:80", "web"
	host     string
	port     int32
	file     string // the URL path's last element, "" for none
}

// parseTarget reads "http://web:8080/x", "web:80", "web" (default port
// def; https's default is 443).
func parseTarget(s string, def int32) (target, bool) {
	if rest, ok := strings.CutPrefix(s, "https://"); ok {
		s, def = rest, 443
	} else if rest, ok := strings.CutPrefix(s, "http://"); ok {
		s = rest
	} else if strings.Contains(s, "://") {
		return target{}, false
	}
	hostport, p, _ := strings.Cut(s, "/")
	t := target{hostport: hostport, host: hostport, port: def, file: path.Base("/" + p)}
	if t.file == "/" || t.file == "." {
		t.file = ""
	}
	if h, port, err := net.SplitHostPort(hostport); err == nil {
		n, err := strconv.ParseUint(port, 10, 16)
		if err != nil {
			return target{}, false
		}
		t.host, t.port = h, int32(n)
	}
	return t, t.host != ""
}

// wget is BusyBox's wget: "Connecting to ...", then the file it saves
// (index.html, or the URL's file, or -O's), or with -q nothing; its
// errors with exit code 1.
func wget(in *interp, args []string) {
	var url, out string
	quiet, spider := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-q" || a == "--quiet":
			quiet = true
		case a == "--spider" || a == "-s":
			spider = true
		case a == "-O" || a == "-T" || a == "-U" || a == "--header" || a == "-Y":
			if i+1 < len(args) && a == "-O" {
				out = args[i+1]
			}
			i++
		case strings.HasPrefix(a, "-qO"):
			quiet, out = true, strings.TrimPrefix(a, "-qO")
		case strings.HasPrefix(a, "-O"):
			out = strings.TrimPrefix(a, "-O")
		case strings.HasPrefix(a, "--timeout=") || strings.HasPrefix(a, "-T") || a == "-S" || a == "-c":
		case strings.HasPrefix(a, "-"):
			in.notSimulated(fmt.Sprintf("%q", "wget "+strings.Join(args, " ")))
			return
		case url == "":
			url = a
		}
	}
	t, ok := parseTarget(url, 80)
	if !ok {
		in.notSimulated(fmt.Sprintf("%q", "wget "+strings.Join(args, " ")))
		return
	}
	outcome, ip := in.dial(t.host, t.port)
	switch outcome {
	case dialNotSimulated:
		in.notSimulated(fmt.Sprintf("%q (kubesim's network has only Services)", "wget "+strings.Join(args, " ")))
		return
	case dialBadAddress:
		in.writeln(fmt.Sprintf("wget: bad address '%s'", t.hostport))
		in.status = 1
		return
	}
	if !quiet {
		in.writeln(fmt.Sprintf("Connecting to %s (%s)", t.hostport, net.JoinHostPort(ip, strconv.Itoa(int(t.port)))))
	}
	if outcome == dialRefused {
		in.writeln(fmt.Sprintf("wget: can't connect to remote host (%s): Connection refused", ip))
		in.status = 1
		return
	}
	in.status = 0
	switch {
	case quiet:
	case spider:
		in.writeln("remote file exists")
	case out == "-":
		in.writeln("writing to stdout")
		in.writeln("written to stdout")
	default:
		if out == "" {
			out = t.file
		}
		if out == "" {
			out = "index.html"
		}
		in.writeln(fmt.Sprintf("saving to '%s'", out))
		in.writeln(fmt.Sprintf("'%s' saved", out))
	}
}

// curl is curl: silent on success (kubesim has no body to write); on
// failure its "curl: (6)" / "curl: (7)" message (not with -s, unless
// -S) and exit code.
func curl(in *interp, args []string) {
	var url string
	silent, showError := false, false
	withArg := "oHXdmwuAeTEr"
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--silent":
			silent = true
		case a == "--show-error":
			showError = true
		case strings.HasPrefix(a, "--"):
			if slices.Contains([]string{"--max-time", "--connect-timeout", "--output", "--header", "--request", "--data", "--write-out", "--user", "--retry"}, a) {
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j, f := range a[1:] {
				silent = silent || f == 's'
				showError = showError || f == 'S'
				if strings.ContainsRune(withArg, f) {
					if j == len(a)-2 {
						i++
					}
					break
				}
			}
		case url == "":
			url = a
		}
	}
	t, ok := parseTarget(url, 80)
	if !ok {
		in.notSimulated(fmt.Sprintf("%q", "curl "+strings.Join(args, " ")))
		return
	}
	say := !silent || showError
	switch outcome, _ := in.dial(t.host, t.port); outcome {
	case dialNotSimulated:
		in.notSimulated(fmt.Sprintf("%q (kubesim's network has only Services)", "curl "+strings.Join(args, " ")))
	case dialBadAddress:
		if say {
			in.writeln(fmt.Sprintf("curl: (6) Could not resolve host: %s", t.host))
		}
		in.status = 6
	case dialRefused:
		if say {
			in.writeln(fmt.Sprintf("curl: (7) Failed to connect to %s port %d after 0 ms: Couldn't connect to server", t.host, t.port))
		}
		in.status = 7
	default:
		in.status = 0
	}
}

// nc is BusyBox's nc: "nc [-z] [-v] [-w N] HOST PORT" connects (and,
// with no input to send, ends); -v says "HOST (IP:PORT) open".
func nc(in *interp, args []string) {
	var operands []string
	verbose := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-w" || a == "-i":
			i++
		case strings.HasPrefix(a, "-") && strings.Trim(a[1:], "zvn") == "" && len(a) > 1:
			verbose = verbose || strings.Contains(a, "v")
		case strings.HasPrefix(a, "-w"):
		case strings.HasPrefix(a, "-"):
			in.notSimulated(fmt.Sprintf("%q", "nc "+strings.Join(args, " ")))
			return
		default:
			operands = append(operands, a)
		}
	}
	var port uint64
	var err error
	if len(operands) == 2 {
		port, err = strconv.ParseUint(operands[1], 10, 16)
	}
	if len(operands) != 2 || err != nil {
		in.notSimulated(fmt.Sprintf("%q", "nc "+strings.Join(args, " ")))
		return
	}
	host := operands[0]
	switch outcome, ip := in.dial(host, int32(port)); outcome {
	case dialNotSimulated:
		in.notSimulated(fmt.Sprintf("%q (kubesim's network has only Services)", "nc "+strings.Join(args, " ")))
	case dialBadAddress:
		in.writeln(fmt.Sprintf("nc: bad address '%s'", host))
		in.status = 1
	case dialRefused:
		in.writeln(fmt.Sprintf("nc: can't connect to remote host (%s): Connection refused", ip))
		in.status = 1
	default:
		if verbose {
			in.writeln(fmt.Sprintf("%s (%s:%d) open", host, ip, port))
		}
		in.status = 0
	}
}
