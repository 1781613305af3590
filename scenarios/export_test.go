package scenarios

// What the external tests need to spell the loader's messages that list
// every registered kind, so that registering one does not break them.
var (
	// ExpectKeys lists the expectation kinds, as messages do.
	ExpectKeys = expectKeys
	// ActionKeys lists the action kinds, as messages do.
	ActionKeys = actionKeys
	// FactKeys lists the facts a question may name, as messages do.
	FactKeys = factKeys
	// KindNames lists the object kinds, as messages do.
	KindNames = kindNames
)
