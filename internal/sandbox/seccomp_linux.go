//go:build linux && (amd64 || arm64)

package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock's TCP rules see only plain TCP sockets: an MPTCP socket
// (IPPROTO_MPTCP) connects anywhere, UDP is unconfined before ABI v10,
// and raw or packet sockets need only CAP_NET_RAW, which a root user has.
// Where Landlock alone must hold the network (network off, or the proxy
// without a namespace), a seccomp filter therefore allows only unix and
// netlink sockets and plain TCP stream sockets, and no io_uring (which can
// create sockets without the socket system call).

// auditArch is this build's seccomp architecture.
var auditArch = map[string]uint32{"amd64": unix.AUDIT_ARCH_X86_64, "arm64": unix.AUDIT_ARCH_AARCH64}[runtime.GOARCH]

// socketFilter builds the BPF program. Offsets are those of struct
// seccomp_data: nr 0, arch 4, args[i] at 16+8i (low 32 bits first on
// these little-endian architectures).
func socketFilter() []unix.SockFilter {
	const (
		ld   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		and  = unix.BPF_ALU | unix.BPF_AND | unix.BPF_K
		ret  = unix.BPF_RET | unix.BPF_K
		deny = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
	)
	// Each jump names labels; resolve them after laying out the program.
	type ins struct {
		code   uint16
		k      uint32
		jt, jf string
		label  string
	}
	prog := []ins{
		{code: ld, k: 4},
		{code: jeq, k: auditArch, jf: "deny"},
		{code: ld, k: 0},
		{code: jge, k: 0x40000000, jt: "deny"}, // x32 system calls on amd64
		{code: jeq, k: uint32(unix.SYS_IO_URING_SETUP), jt: "deny"},
		{code: jeq, k: uint32(unix.SYS_SOCKET), jf: "allow"},
		{code: ld, k: 16},
		{code: jeq, k: unix.AF_UNIX, jt: "allow"},
		{code: jeq, k: unix.AF_NETLINK, jt: "allow"},
		{code: jeq, k: unix.AF_INET, jt: "inet"},
		{code: jeq, k: unix.AF_INET6, jt: "inet", jf: "deny"},
		{label: "inet", code: ld, k: 24},
		{code: and, k: 0xf},
		{code: jeq, k: unix.SOCK_STREAM, jf: "deny"},
		{code: ld, k: 32},
		{code: jeq, k: 0, jt: "allow"},
		{code: jeq, k: unix.IPPROTO_TCP, jt: "allow", jf: "deny"},
		{label: "allow", code: ret, k: unix.SECCOMP_RET_ALLOW},
		{label: "deny", code: ret, k: deny},
	}
	at := map[string]int{}
	for i, in := range prog {
		if in.label != "" {
			at[in.label] = i
		}
	}
	off := func(i int, label string) uint8 {
		if label == "" {
			return 0
		}
		return uint8(at[label] - i - 1)
	}
	out := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		out[i] = unix.SockFilter{Code: in.code, K: in.k, Jt: off(i, in.jt), Jf: off(i, in.jf)}
	}
	return out
}

// restrictSockets installs the filter on every thread of the helper (it
// survives exec). no_new_privs is set first, as seccomp requires.
func restrictSockets() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	f := socketFilter()
	prog := unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(f)
	if errno != 0 {
		return fmt.Errorf("seccomp: %w", errno)
	}
	return nil
}
