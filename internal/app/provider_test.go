package app

import "testing"

func TestEnvMapLastWins(t *testing.T) {
	e := newEnvMap([]string{"A=1", "A=2", "B=x=y", "junk"})
	if e.get("A") != "2" || e.get("B") != "x=y" {
		t.Errorf("env = %v", e)
	}
}
