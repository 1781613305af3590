// Package scenarios is kubesim's scenario engine: the YAML format (Parse,
// Load, Find, and the embedded Library), the cluster a scenario asks for
// (Scenario.Configure), the runner (Play), which acts on a running cluster
// and checks each step's expectations against the API and the flow events
// the components record, and the plain and JSON printers that observe it.
// docs/scenarios.md is the reference of the format.
package scenarios
