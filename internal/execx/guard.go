package execx

// GuardArg is the hidden first argument of hew's group-guard personality
// (`hew __guard --parent PID -- COMMAND…`). On Linux run_shell commands run
// under it so that a hew killed with kill -9 takes its shell children
// along: the guard leads the process group and gets a parent-death signal,
// which it turns into SIGKILL for the whole group. A parent-death signal
// given to the shell itself would kill only the shell and leave its
// children (a `sleep`, a dev server) running.
const GuardArg = "__guard"
