#!/usr/bin/env bash
# tools/same_kernels.sh BEFORE [ARCH [FOLDER]] - is every kernel's code the same as at
# commit BEFORE? For moves that should change no kernel (code moved into a
# header, renames): each chapter source's PTX at BEFORE and now, for ARCH
# (sm_90a by default; chapter 10's wgmma code needs it), split into kernels,
# each with its names and labels blanked out (a rename, or a kernel made
# static, changes no instruction), and compared as sets per program object.
#
#   make same-kernels BEFORE=main [ARCH=sm_75] [FOLDER=chapters/06-fused]
#
# FOLDER keeps to the sources under one folder.
# Prints one line per object, "same", "fewer" (each kernel as before, some no
# longer instantiated there) or "DIFFERENT"; exits 1 if any is DIFFERENT.
# An object whose sources were merged (a .cu that became part of another's
# header) is compared against the union of the old objects it took in:
# list them as MERGED="new.cu=old1.cu,old2.cu".
set -u
before=${1:?usage: tools/same_kernels.sh BEFORE [ARCH [FOLDER]]}
arch=${2:-sm_90a}
folder=${3:-chapters}
nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null || nvcc=/usr/local/cuda/bin/nvcc
work=${BUILD:-build}/same-kernels
rm -rf "$work" && mkdir -p "$work/old" "$work/new" || exit 2
git rev-parse --verify --quiet "$before^{commit}" >/dev/null ||
    { echo "same-kernels: $before is no commit here" >&2; exit 2; }
git worktree add --detach --quiet "$work/tree" "$before" || exit 2
trap 'git worktree remove --force "$work/tree"' EXIT

# kernels TREE OUT: one line per kernel of each chapter source, "FILE HASH"
kernels() {
    local tree=$1 out=$2 file ptx
    for file in $(cd "$tree" && ls chapters/[0-9][0-9]-*/*.cu chapters/[0-9][0-9]-*/tried/*.cu |
                  grep "^${folder%/}/"); do
        ptx=$out/$(echo "$file" | tr / _).ptx
        (cd "$tree" && "$nvcc" -O3 -arch="$arch" -std=c++17 -Icommon -ptx "$file" -o -) \
            > "$ptx" 2> "$ptx.err" || { echo "same-kernels: $file does not build" >&2; return 1; }
        awk -v file="$file" '
            /^[[:space:]]*(\.loc|\.file)/ || /^[[:space:]]*\/\// { next }
            /(\.visible |\.weak )?\.entry / { inside = 1; depth = 0; body = "" }
            inside {
                line = $0
                sub(/^\.visible /, "", line); sub(/^\.weak /, "", line)
                gsub(/_Z[A-Za-z0-9_]+/, "SYM", line); gsub(/\$L__[A-Za-z0-9_]+/, "L", line)
                body = body line "\n"
                depth += gsub(/\{/, "{", $0) - gsub(/\}/, "}", $0)
                if (depth == 0 && $0 ~ /\}/) {
                    cmd = "md5sum"; printf "%s", body | cmd; close(cmd)
                    inside = 0
                }
            }' "$ptx" | awk -v file="$file" '{ print file, $1 }'
    done
}
kernels "$work/tree" "$work/old" > "$work/old.txt" || exit 2
kernels . "$work/new" > "$work/new.txt" || exit 2

for merge in ${MERGED:-}; do # new.cu=old1.cu,old2.cu: the old kernels under the new name
    new=${merge%%=*}
    for old in $(echo "${merge#*=}" | tr , ' '); do
        awk -v old="$old" -v new="$new" '$1 == old { print new, $2 }' "$work/old.txt"
    done
done >> "$work/old.txt"

status=0
for file in $(cut -d' ' -f1 "$work/new.txt" | sort -u); do
    sort_of() { awk -v f="$file" '$1 == f { print $2 }' "$1" | sort; }
    old=$(sort_of "$work/old.txt"); new=$(sort_of "$work/new.txt")
    count=$(printf '%s\n' "$new" | grep -c .)
    if [ "$old" = "$new" ]; then
        echo "same       $file ($count kernels)"
    elif [ -z "$(comm -13 <(printf '%s\n' "$old") <(printf '%s\n' "$new"))" ]; then
        echo "fewer      $file ($count of $(printf '%s\n' "$old" | grep -c .) kernels, each as before)"
    else
        echo "DIFFERENT  $file: $(comm -13 <(printf '%s\n' "$old") <(printf '%s\n' "$new") | grep -c .) kernels new or changed"
        status=1
    fi
done
exit $status
