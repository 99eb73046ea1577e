//go:build !unix

package mockserver

import "testing"

func interrupt(t *testing.T) {
	t.Skip("sending an interrupt to this process needs a unix system")
}
