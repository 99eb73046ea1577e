//go:build race

package e2e

// raceBuild makes TestMain build hew with the race detector when the tests
// run with -race: races in real runs are caught, and the packages compiled
// for the race-enabled tests are reused.
const raceBuild = true
