//go:build !linux

package execx

import (
	"fmt"
	"os"
)

// DefaultGuard is nil here: without a parent-death signal a guard could
// not learn that hew died, so commands run directly.
func DefaultGuard() []string { return nil }

// GuardMain refuses: the guard exists only on Linux.
func GuardMain([]string) int {
	fmt.Fprintln(os.Stderr, "hew guard: only on Linux")
	return 2
}
