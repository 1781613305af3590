package storage

import (
	"errors"
	"fmt"
)

// ErrorCode classifies storage failures that callers translate into API
// errors, because only they know the resource and name to report.
type ErrorCode int

// Storage error codes.
const (
	// ErrCodeKeyNotFound: the key does not exist.
	ErrCodeKeyNotFound ErrorCode = iota + 1
	// ErrCodeKeyExists: a create found the key already there.
	ErrCodeKeyExists
	// ErrCodeInvalidObj: a precondition (uid, resourceVersion) failed, or
	// the stored object could not be used.
	ErrCodeInvalidObj
)

// Error is a storage failure on one key.
type Error struct {
	Code ErrorCode
	Key  string
	// Rev is the revision at which the failure was observed, if known.
	Rev int64
	// Msg explains an ErrCodeInvalidObj failure; clients see it at the
	// end of Error's text.
	Msg string
}

func (e *Error) Error() string {
	switch e.Code {
	case ErrCodeKeyNotFound:
		return fmt.Sprintf("key not found: %s", e.Key)
	case ErrCodeKeyExists:
		return fmt.Sprintf("key exists: %s", e.Key)
	default:
		// Upstream's StorageError text (k8s.io/apiserver/pkg/storage/errors.go),
		// which clients see inside a Conflict: code 4 is its ErrCodeInvalidObj,
		// and NewInvalidObjError leaves the resourceVersion 0.
		return fmt.Sprintf("StorageError: invalid object, Code: 4, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: %s", e.Key, e.Msg)
	}
}

func hasCode(err error, code ErrorCode) bool {
	var se *Error
	return errors.As(err, &se) && se.Code == code
}

// IsNotFound reports whether err says the key does not exist.
func IsNotFound(err error) bool { return hasCode(err, ErrCodeKeyNotFound) }

// IsExist reports whether err says a create found the key taken.
func IsExist(err error) bool { return hasCode(err, ErrCodeKeyExists) }

// IsInvalidObj reports whether err is a failed precondition.
func IsInvalidObj(err error) bool { return hasCode(err, ErrCodeInvalidObj) }
