#!/usr/bin/env bash
# solutions/sandbox.sh - runs one command of a student's submission (a
# compile, a host check, a program, a tool over it) in a sandbox, for the
# grader (solutions/grade.sh):
#
#   solutions/sandbox.sh [--ro SRC DEST]... [--rw SRC DEST]... [--scratch DEST MB]...
#                        [--cd DIR] [--env NAME=VALUE]... [--memory MB] -- COMMAND [ARG...]
#   solutions/sandbox.sh --check      can a sandbox start here? says how, or why not
#   solutions/sandbox.sh --user       the uid:gid submissions run as (the grader as root)
#
# Inside, the command sees the system's programs and libraries read-only
# (/usr, /etc, /opt, the CUDA toolkit), a fresh /dev with the GPU's device
# nodes (/dev/nvidia*) added, an empty /tmp, and of everything else only
# the folders bound with --ro (read-only) and --rw (writable), at DEST, and
# the empty folders of at most MB in memory that --scratch makes (a run's
# folder: what it writes there is gone after it, and no run fills the
# disk). /tmp is one of those, of GRADE_TMP_MB (256). It
# has no network (a network namespace of its own, with only a loopback
# device, which bwrap brings up: it reaches nothing but the sandbox itself),
# no other process in sight (a PID namespace), no
# terminal (a new session), no environment but PATH, LANG and the --env
# settings, and dies with the grader. A seccomp filter (solutions/seccomp.py,
# built once into ~/.cache/workbook/) refuses what no compile or kernel run
# needs and an escape would: new namespaces (no user namespace inside),
# mounts, kernel modules and BPF, keyrings, and the like.
#
# Who runs it: where the grader runs as root, bwrap starts as root, which
# needs no user namespace (a machine or container that forbids those still
# works), and the command then runs as an unprivileged user with no
# capability and no way to gain one (setpriv from util-linux: GRADE_SANDBOX_USER,
# uid:gid, by default 61999:61999, a uid of the grader's own: no account may
# have it, which --check verifies, so that no other process shares its
# limits or its files). A grader that is not root runs bwrap in a user
# namespace of its own, as itself.
#
# The tool is bubblewrap (`bwrap`, Debian's package bubblewrap, which `make
# deps` installs), found on the PATH or named by GRADE_BWRAP, for a machine
# without a registry where it was unpacked from its .deb (solutions/README.md
# says how). Where no sandbox can start, --check says why and the grader
# refuses to grade: it never falls back to running a submission bare.
#
# Exit status: the command's; 2 bad usage; with --check, 0 when a sandbox
# can start here and 2 (with the reason and the fix) when it cannot.
set -u

usage() {
    echo "usage: $0 [--ro SRC DEST]... [--rw SRC DEST]... [--scratch DEST MB]... [--cd DIR]" \
         "[--env NAME=VALUE]... [--memory MB] -- COMMAND [ARG...] | --check" >&2
    exit 2
}

bwrap=${GRADE_BWRAP:-$(command -v bwrap 2>/dev/null)}
user=${GRADE_SANDBOX_USER:-61999:61999}
here=${BASH_SOURCE[0]%/*}

# The functions below fill arrays with bash's own means (no dirname,
# readlink or subshell per call): the grader starts a sandbox hundreds of
# times, and each process started is CPU time on a small machine.

# system_mounts: the system's folders, /dev, /proc, /sys and /tmp, and the
# CUDA toolkit where it lives outside /usr and /opt, into the array system.
system_mounts() {
    local dir node toolkit nvcc k links=() targets=()
    system=()
    for dir in /usr /bin /sbin /lib /lib32 /lib64 /libx32 /etc /opt; do
        if [ -L "$dir" ]; then
            links+=("$dir")
        elif [ -d "$dir" ]; then
            system+=(--ro-bind "$dir" "$dir")
        fi
    done
    # The links (/bin -> usr/bin where /usr is merged) made again inside, each
    # as its text says: one readlink for all of them (one a link cost 4
    # processes a sandbox, at some 8 ms of CPU each on a small machine).
    if [ ${#links[@]} -gt 0 ]; then
        mapfile -d '' -t targets < <(readlink -z -- "${links[@]}")
        if [ ${#targets[@]} -ne ${#links[@]} ]; then
            echo "sandbox: cannot read the links ${links[*]}" >&2
            exit 2
        fi
        for k in "${!links[@]}"; do system+=(--symlink "${targets[$k]}" "${links[$k]}"); done
    fi
    nvcc=$(type -P "${NVCC:-nvcc}") || nvcc=/usr/local/cuda/bin/nvcc
    if [ -x "$nvcc" ]; then
        toolkit=$(realpath "$nvcc") toolkit=${toolkit%/*} toolkit=${toolkit%/*}
        case $toolkit in
            /usr/*|/opt/*) ;;
            *) system+=(--ro-bind "$toolkit" "$toolkit") ;;
        esac
    fi
    system+=(--dev /dev --proc /proc --ro-bind /sys /sys --perms 1777
            --size $(( ${GRADE_TMP_MB:-256} * 1048576 )) --tmpfs /tmp)
    for node in /dev/nvidia*; do
        [ -e "$node" ] && system+=(--dev-bind "$node" "$node")
    done
}

# identity: the namespaces, into the array names.
identity() {
    if [ "$EUID" -eq 0 ]; then
        names=(--unshare-net --unshare-ipc --unshare-pid --unshare-uts --unshare-cgroup-try)
    else
        names=(--unshare-all)
    fi
    names+=(--die-with-parent --new-session --hostname sandbox)
}

# drop_privileges: setpriv's words, where the grader is root, into the
# array privileges.
drop_privileges() {
    privileges=()
    if [ "$EUID" -eq 0 ]; then
        privileges=("$(type -P setpriv)" --reuid="${user%%:*}" --regid="${user##*:}"
                    --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs --)
    fi
}

# seccomp_filter: the filter's file, built when missing or older than
# seccomp.py, into the variable filter; 1 (with the reason) when it cannot be.
seccomp_filter() {
    local cache=${XDG_CACHE_HOME:-$HOME/.cache}/workbook
    filter=$cache/sandbox-seccomp-$HOSTTYPE.bpf
    [ -s "$filter" ] && [ "$filter" -nt "$here/seccomp.py" ] && return 0
    mkdir -p "$cache" && python3 "$here/seccomp.py" "$filter.$$" && mv -f "$filter.$$" "$filter" && return 0
    rm -f "$filter.$$"
    echo "sandbox: no seccomp filter (solutions/seccomp.py, python3) at $filter" >&2
    return 1
}

check() {
    if [ -z "$bwrap" ] || [ ! -x "$bwrap" ]; then
        echo "sandbox: no bwrap${GRADE_BWRAP:+ at $GRADE_BWRAP}: install bubblewrap (make deps)," \
             "or set GRADE_BWRAP to a bwrap unpacked from its .deb (solutions/README.md)" >&2
        return 2
    fi
    if [ "$EUID" -eq 0 ] && ! command -v setpriv >/dev/null 2>&1; then
        echo "sandbox: the grader is root and there is no setpriv (util-linux) to drop" \
             "to an unprivileged user with" >&2
        return 2
    fi
    if [ "$EUID" -eq 0 ] && getent passwd "${user%%:*}" >/dev/null 2>&1; then
        echo "sandbox: uid ${user%%:*} is the account $(getent passwd "${user%%:*}" | cut -d: -f1)'s;" \
             "submissions need a uid of their own (GRADE_SANDBOX_USER=uid:gid)" >&2
        return 2
    fi
    local why filter
    seccomp_filter || return 2
    if ! why=$(run_sandboxed -- true 2>&1); then
        echo "sandbox: $bwrap cannot start here: $why" >&2
        if [ "$EUID" -ne 0 ]; then
            echo "sandbox: as a user that is not root bwrap needs user namespaces" \
                 "(sysctl kernel.unprivileged_userns_clone=1, or grade as root)" >&2
        fi
        return 2
    fi
    local who="as $(id -un)"
    [ "$EUID" -eq 0 ] && who="as uid ${user%%:*} (the grader is root)"
    echo "sandbox: $("$bwrap" --version 2>/dev/null || echo bwrap), submissions run $who," \
         "without network, under a seccomp filter"
}

run_sandboxed() {
    local binds=() scratches=() environment=() system_parent=() directory=/ memory_mb=""
    while [ $# -gt 0 ]; do
        case $1 in
            --ro) [ $# -ge 3 ] || usage; binds+=(--ro-bind "$2" "$3"); shift 3 ;;
            --rw) [ $# -ge 3 ] || usage; binds+=(--bind "$2" "$3"); shift 3 ;;
            --scratch) [ $# -ge 3 ] && [[ $3 =~ ^[1-9][0-9]*$ ]] || usage
                       scratches+=(--perms 1777 --size $(( $3 * 1048576 )) --tmpfs "$2"); shift 3 ;;
            --cd) [ $# -ge 2 ] || usage; directory=$2; shift 2 ;;
            --memory) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || usage; memory_mb=$2; shift 2 ;;
            --env) [ $# -ge 2 ] || usage
                   case $2 in *=*) ;; *) usage ;; esac
                   environment+=(--setenv "${2%%=*}" "${2#*=}"); shift 2 ;;
            --) shift; break ;;
            *) usage ;;
        esac
    done
    [ $# -ge 1 ] || usage
    # Hard limits, which the command cannot raise again (a soft one it can):
    # no core files; no file (its output included) over GRADE_FILE_MB, 256
    # MiB by default: a full disk is no way to fail others (past it, the
    # write kills the command with SIGXFSZ); where the grader is root, at
    # most GRADE_PROCESSES processes and threads, 4096 by default, for the
    # sandbox's user (all its sandboxes together: a fork bomb stops there;
    # a grading on 16 cores runs a probe and a referee for each of 16
    # exercises at once, and compute-sanitizer alone starts dozens of
    # threads: 512 was too few there); with --memory,
    # at most MB of address space (the grader's compiles and host checks:
    # a compiler fed /dev/zero stops there; not the GPU runs, for which the
    # CUDA driver reserves terabytes of addresses).
    ulimit -c 0 || exit 2
    ulimit -f $(( ${GRADE_FILE_MB:-256} * 1024 )) || exit 2
    if [ "$EUID" -eq 0 ]; then ulimit -u "${GRADE_PROCESSES:-4096}" || exit 2; fi
    if [ -n "$memory_mb" ]; then ulimit -v $(( memory_mb * 1024 )) || exit 2; fi
    # The folders above each DEST, made readable by anyone: bwrap would make
    # them for root alone, and the unprivileged user could not walk through.
    local system=() names=() privileges=() chain=() dest parent k j
    local -A seen=()
    for ((k = 2; k < ${#binds[@]}; k += 3)); do
        dest=${binds[$k]} chain=()
        parent=${dest%/*}
        [ "$parent" = "$dest" ] && parent=.   # (a name with no /)
        while [ -n "$parent" ] && [ "$parent" != / ] && [ "$parent" != . ]; do
            chain+=("$parent") parent=${parent%/*}
        done
        for ((j = ${#chain[@]} - 1; j >= 0; j--)); do   # each folder after the one above it
            parent=${chain[$j]}
            [ -n "${seen[$parent]:-}" ] && continue
            seen[$parent]=1
            system_parent+=(--perms 0755 --dir "$parent")
        done
    done
    local filter
    seccomp_filter || exit 2
    system_mounts
    identity
    drop_privileges
    exec 9< "$filter" || exit 2
    exec "$bwrap" --seccomp 9 "${names[@]}" "${system[@]}" "${system_parent[@]}" "${binds[@]}" "${scratches[@]}" --chdir "$directory" --clearenv \
        --setenv PATH "$PATH" --setenv LANG C "${environment[@]}" \
        ${CUDA_VISIBLE_DEVICES:+--setenv CUDA_VISIBLE_DEVICES "$CUDA_VISIBLE_DEVICES"} \
        -- "${privileges[@]}" "$@"
}

case ${1:-} in
    --check) check; exit $? ;;
    --user) echo "$user" ;;
    "") usage ;;
    *) run_sandboxed "$@" ;;
esac
