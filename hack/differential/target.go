package main

import (
	"fmt"
	"net/http"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// target is one server the corpus is sent to, with a client per kind of
// caller and the variables its answers saved. One goroutine uses it.
type target struct {
	name  string // "kubesim" or "peer"
	host  string // the server's URL, https://127.0.0.1:port
	admin *http.Client
	// anonymous carries no credentials; it serves asAnonymous, asBadToken
	// and asRobot, whose token is set on the request.
	anonymous *http.Client
	vars      map[string]string
}

// clientTimeout bounds one request, a watch included: the corpus's
// watches ask for a timeout of a second or two.
const clientTimeout = 20 * time.Second

// newTarget reads an admin kubeconfig and makes the target's clients, as
// kubectl would from that file (TLS, client certificate or token).
func newTarget(name, kubeconfig string, vars map[string]string) (*target, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	cfg.Timeout = clientTimeout
	admin, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	anonymous, err := rest.HTTPClientFor(rest.AnonymousClientConfig(cfg))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	own := map[string]string{}
	for k, v := range vars {
		own[k] = v
	}
	return &target{name: name, host: cfg.Host, admin: admin, anonymous: anonymous, vars: own}, nil
}

// client is the client a request is sent with, and the bearer token to
// set on it ("" for none).
func (t *target) client(a auth) (*http.Client, string) {
	switch a {
	case asAnonymous:
		return t.anonymous, ""
	case asBadToken:
		return t.anonymous, "diff-not-a-token"
	case asRobot:
		return t.anonymous, t.vars["robotToken"]
	}
	return t.admin, ""
}
