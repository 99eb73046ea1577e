//go:build !unix

package repl

// notifyResize has no resize signal to watch here; the prompt is redrawn
// at the new width on the next key.
func notifyResize(chan struct{}) (stop func()) { return func() {} }
