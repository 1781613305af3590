package main

import "time"

// request is one entry of the corpus: an HTTP request sent alike to
// kubesim and to the peer. Its path, body and header values may hold
// placeholders in braces, filled in per server just before it is sent:
// {id} (this run's random suffix), {ns} (the run's namespace, diff-{id})
// and every variable an earlier request saved on that server.
type request struct {
	name   string // short and unique: the report's key
	method string // GET when empty
	path   string
	body   string
	// ctype is the Content-Type; application/json when empty and there is
	// a body.
	ctype  string
	accept string // Accept; application/json when empty
	header map[string]string
	auth   auth
	// watch reads the answer as a stream of watch events.
	watch bool
	// save names variables to keep from a JSON answer: name → dot path
	// (e.g. "metadata.resourceVersion").
	save map[string]string
	// values are dot paths whose values (after normalization) are compared,
	// besides the shape; "[]" in a path takes every element of an array.
	values []string
	// ignore are path prefixes left out of the shape, each with the reason.
	ignore map[string]string
	// depth, when not zero, keeps only the shape's paths this deep: for
	// documents like OpenAPI whose content is not the point.
	depth int
	// unorderedCauses compares a Status's causes as a set, and its
	// message without the list of them: the validator of custom resources
	// (kube-openapi's) checks properties in Go map order, so upstream
	// itself lists them in a different order from one request to the next.
	unorderedCauses bool
	// codeOnly compares only the status code (for /metrics).
	codeOnly bool
	// setup marks a request that prepares state: its answer is not
	// compared, only checked to be 2xx (or a code in accept).
	setup bool
	// okCodes are the codes a setup request may also answer (e.g. 409 for
	// an object a controller may have made first).
	okCodes []int
	// poll repeats a setup request until it succeeds, up to this long.
	poll time.Duration
}

// auth is who a request is sent as.
type auth string

const (
	asAdmin     auth = ""          // the kubeconfig's admin user
	asAnonymous auth = "anonymous" // no credentials at all
	asBadToken  auth = "bad-token" // a bearer token no authenticator knows
	asRobot     auth = "robot"     // the bearer token saved as {robotToken}
)

// label is the label every object of the corpus carries, so that lists
// and watches select only them and not what controllers make.
const label = "diff%3Dyes"
