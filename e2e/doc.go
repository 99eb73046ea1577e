// Package e2e drives the built hew binary the way a user or a CI script
// does: real processes, real files, the offline mock model, exit codes.
package e2e
