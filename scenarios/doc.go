// Package scenarios is kubesim's scenario engine: the YAML format (Parse,
// Load, Find, and the embedded Library), the cluster a scenario asks for
// (Scenario.Configure), the runner (Play), which acts on a running cluster
// and checks each step's expectations against the API and the flow events
// the components record, and the plain and JSON printers that observe it.
// docs/scenarios.md is the reference of the format.
//
// Each action kind and each expectation kind is one file (action_*.go,
// expect_*.go) holding its type, its parser and what it does when a step
// runs, listed in registry.go one line per key (see framework.go for the
// interfaces). Adding a kind is one new file, one registry line and its
// row in docs/scenarios.md, which TestDocsListEveryKind checks against the
// registry.
package scenarios
