#!/usr/bin/env python3
"""solutions/seccomp.py FILE - writes the sandbox's seccomp filter (a
classic BPF program, what `bwrap --seccomp FD` loads) to FILE, for
solutions/sandbox.sh.

What a submission's commands never need and an escape would: new
namespaces of any kind (clone with a CLONE_NEW* flag, unshare, setns: no new
user namespace inside the sandbox), mounting and changing root, loading
kernel code or BPF programs (modules, kexec, bpf), the kernel's keyrings,
file handles that bypass paths (open_by_handle_at), userfaultfd, and the
machine's clocks, name, swap and reboot. Each is refused with EPERM (the
program sees an ordinary error); clone3, whose flags a filter cannot read,
with ENOSYS, so that the C library falls back to clone. Any other
architecture's calls (a 32-bit program on x86-64, x32) are refused too.
Exit status 2 on a machine whose system-call numbers this file does not
know (x86-64 and aarch64 only); the sandbox then says so and refuses to
grade."""
import platform
import struct
import sys

EPERM, ENOSYS = 1, 38
RET_ALLOW, RET_ERRNO, RET_KILL = 0x7FFF0000, 0x00050000, 0x80000000
LD_ABS_W, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06
# every namespace a clone may create: NEWNS, NEWCGROUP, NEWUTS, NEWIPC,
# NEWUSER, NEWPID, NEWNET, NEWTIME
CLONE_NEW_ANY = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 \
    | 0x20000000 | 0x40000000 | 0x00000080

# (audit arch, clone, clone3, the numbers refused) from each architecture's
# unistd.h: x86-64's own table, aarch64's the generic one.
MACHINES = {
    "x86_64": (0xC000003E, 56, 435, {
        "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "unshare": 272,
        "setns": 308, "kexec_load": 246, "kexec_file_load": 320, "init_module": 175,
        "finit_module": 313, "delete_module": 176, "bpf": 321, "userfaultfd": 323,
        "name_to_handle_at": 303, "open_by_handle_at": 304, "add_key": 248,
        "request_key": 249, "keyctl": 250, "reboot": 169, "swapon": 167, "swapoff": 168,
        "acct": 163, "syslog": 103, "quotactl": 179, "settimeofday": 164,
        "clock_settime": 227, "adjtimex": 159, "sethostname": 170, "setdomainname": 171,
        "iopl": 172, "ioperm": 173, "open_tree": 428, "move_mount": 429, "fsopen": 430,
        "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442}),
    "aarch64": (0xC00000B7, 220, 435, {
        "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51, "unshare": 97,
        "setns": 268, "kexec_load": 104, "kexec_file_load": 294, "init_module": 105,
        "finit_module": 273, "delete_module": 106, "bpf": 280, "userfaultfd": 282,
        "name_to_handle_at": 264, "open_by_handle_at": 265, "add_key": 217,
        "request_key": 218, "keyctl": 219, "reboot": 142, "swapon": 224, "swapoff": 225,
        "acct": 89, "syslog": 116, "quotactl": 60, "settimeofday": 170,
        "clock_settime": 112, "adjtimex": 171, "sethostname": 161, "setdomainname": 162,
        "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431,
        "fsmount": 432, "fspick": 433, "mount_setattr": 442}),
}


def program(machine):
    arch, clone, clone3, refused = MACHINES[machine]
    # (code, true target, false target, k): targets are labels or 0 (next)
    code = [(LD_ABS_W, 0, 0, 4),                    # the call's architecture
            (JEQ, 0, "kill", arch),
            (LD_ABS_W, 0, 0, 0)]                    # its number
    if machine == "x86_64":
        code.append((JGE, "eperm", 0, 0x40000000))  # x32's calls
    code.append((JEQ, "enosys", 0, clone3))
    code.append((JEQ, "clone", 0, clone))
    for number in sorted(refused.values()):
        code.append((JEQ, "eperm", 0, number))
    code.append((RET, 0, 0, RET_ALLOW))
    labels = {"clone": len(code)}
    code += [(LD_ABS_W, 0, 0, 16),                  # clone's flags, the low word of its first argument
             (JSET, "eperm", 0, CLONE_NEW_ANY),
             (RET, 0, 0, RET_ALLOW)]
    labels["eperm"] = len(code); code.append((RET, 0, 0, RET_ERRNO | EPERM))
    labels["enosys"] = len(code); code.append((RET, 0, 0, RET_ERRNO | ENOSYS))
    labels["kill"] = len(code); code.append((RET, 0, 0, RET_KILL))
    out = b""
    for at, (op, true, false, k) in enumerate(code):
        jt = labels[true] - at - 1 if true else 0
        jf = labels[false] - at - 1 if false else 0
        assert 0 <= jt < 256 and 0 <= jf < 256
        out += struct.pack("=HBBI", op, jt, jf, k)
    return out


def main(argv):
    machine = platform.machine()
    if len(argv) != 1:
        print("usage: solutions/seccomp.py FILE", file=sys.stderr)
        return 2
    if machine not in MACHINES:
        print("seccomp.py: no table of system calls for %s (only %s)" % (machine, ", ".join(MACHINES)),
              file=sys.stderr)
        return 2
    with open(argv[0], "wb") as f:
        f.write(program(machine))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
