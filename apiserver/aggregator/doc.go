// Package aggregator is the logic of kubesim's aggregator, the first server
// of the delegation chain, as kube-aggregator has it: which APIServices the
// control plane registers for its own group-versions (autoregister, and one
// per CRD group-version as crdregistration does), how APIServices are
// validated, ordered and merged into the discovery documents of /apis, the
// proxy that forwards a request for a remote APIService to its backend over
// TLS, and the controllers that keep each APIService's Available condition
// (Local for local ones; a discovery GET on the backend for remote ones).
//
// It knows nothing of go-restful nor of kubesim's storage:
// package aggregatorserver wires it with in-process informers on the
// registry's stores and a Client that writes through them. The controllers
// follow client-go's pattern (informer event handlers feeding a workqueue,
// one worker loop each); their Run methods block until their context is
// done and return once every goroutine they started has ended.
//
// Where kubesim differs from a real cluster it says so in the doc comment
// of the part concerned: Services are resolved through a table the
// assembler fills (Resolver), not through the Service's endpoints.
package aggregator
