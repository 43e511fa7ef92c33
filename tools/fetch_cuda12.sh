#!/usr/bin/env bash
# tools/fetch_cuda12.sh DIR - the CUDA 12.4 compiler, with the headers and
# the link libraries the workbook needs, unpacked into DIR from Debian
# trixie's packages (non-free: nvidia-cuda-toolkit, nvidia-cuda-dev; main:
# the CCCL headers, cub, libcu++ and thrust). Nothing is installed on the
# system: apt runs with a state of its own under DIR, and the packages are
# unpacked, not installed. It ends with DIR/bin/nvcc, a CUDA 12.4 nvcc laid
# out like NVIDIA's toolkit (bin/, nvvm/, include/, lib64/), which compiles
# and links a .cu file that calls the runtime and cuBLAS:
#
#   tools/fetch_cuda12.sh ~/.cache/workbook/cuda-12.4
#   make BUILD=build-cuda12 NVCC=~/.cache/workbook/cuda-12.4/bin/nvcc
#
# .ci/run fetches it for tests/suites/13-cuda12.sh (NVCC_12). Run again with
# DIR ready, it does nothing and says so; after a failed run it starts over.
# It takes what a compile and a link need, no more: nvcc, cicc, ptxas and
# their helpers, the headers, cudart's static library and the link stubs of
# libcublas and libcuda (a program loads the real cuBLAS where it runs). The
# download is about 1 GB (nvidia-cuda-dev holds every static library of the
# toolkit; its headers come with them), deleted once unpacked; DIR then holds
# about 165 MB.
#
# Exit status: 0 DIR/bin/nvcc is ready; 1 the download or the unpacking
# failed (the mirror, the network, the disk); 2 bad usage, or DIR is a
# folder this script did not make; 3 the toolkit is unpacked but does not
# compile a test program (a fault of the toolkit or of this script, not of
# the network).
#
# CUDA12_MIRROR overrides the Debian mirror (http://deb.debian.org/debian).
set -euo pipefail

me=fetch_cuda12
# Any command that fails unforeseen: a failed download or unpacking (exit 1).
trap 'echo "$me: failed (exit $?): $BASH_COMMAND" >&2; exit 1' ERR
usage() {
    echo "usage: tools/fetch_cuda12.sh DIR   (CUDA 12.4 unpacked into DIR, its compiler DIR/bin/nvcc)" >&2
    exit 2
}
case ${1:-} in -h|--help) echo "usage: tools/fetch_cuda12.sh DIR   (CUDA 12.4 unpacked into DIR, its compiler DIR/bin/nvcc)"; exit 0 ;; esac
[ $# -eq 1 ] && [ -n "$1" ] || usage
case $1 in -*) echo "$me: unknown option '$1'" >&2; usage ;; esac
die() { echo "$me: $1" >&2; exit "${2:-1}"; }

mirror=${CUDA12_MIRROR:-http://deb.debian.org/debian}
packages=(nvidia-cuda-toolkit nvidia-cuda-dev libcub-dev libcu++-dev libthrust-dev)
# What DIR holds, besides the stamps: removed before each new attempt.
pieces=(bin nvvm include lib64 host .staging)
done_stamp=.fetch_cuda12.done
partial_stamp=.fetch_cuda12.partial

mkdir -p -- "$1" || die "cannot create $1"
dir=$(cd -- "$1" && pwd) || die "cannot enter $1"

if [ -f "$dir/$done_stamp" ] && "$dir/bin/nvcc" --version >/dev/null 2>&1; then
    echo "$me: $dir already holds $(head -n 1 "$dir/$done_stamp"); nothing to do"
    exit 0
fi
# A folder that is not empty and that this script did not start is left alone.
if [ ! -e "$dir/$done_stamp" ] && [ ! -e "$dir/$partial_stamp" ] &&
   [ -n "$(ls -A -- "$dir")" ]; then
    die "$dir is not empty and was not made by this script: name a new or empty folder" 2
fi
if [ -e "$dir/$done_stamp" ]; then
    echo "$me: $dir was fetched but $dir/bin/nvcc does not run: fetching it again"
fi
rm -f "$dir/$done_stamp"
touch "$dir/$partial_stamp"
for piece in "${pieces[@]}"; do rm -rf -- "${dir:?}/$piece"; done

command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null ||
    die "apt-get and dpkg-deb are needed (a Debian or Ubuntu system)"
arch=$(dpkg --print-architecture) || die "dpkg --print-architecture failed"

# apt with a state of its own: its sources, lists, cache and preferences
# under DIR/.staging, the system's left as they are (its apt.conf.d, a proxy
# say, still applies). Only the Packages indices of main and non-free, for
# this machine's architecture.
staging=$dir/.staging
apt_state=$staging/apt
debs=$staging/debs
root=$staging/root
mkdir -p "$apt_state/lists/partial" "$apt_state/cache/archives/partial" \
    "$apt_state/preferences.d" "$debs" "$root"
echo "deb [arch=$arch lang=none target=Packages] $mirror trixie main non-free" \
    > "$apt_state/sources.list"
apt_options=(
    -o "Dir::Etc::SourceList=$apt_state/sources.list" -o Dir::Etc::SourceParts=-
    -o "Dir::Etc::Preferences=$apt_state/preferences" -o "Dir::Etc::PreferencesParts=$apt_state/preferences.d"
    -o "Dir::State::Lists=$apt_state/lists" -o "Dir::Cache=$apt_state/cache"
    -o "APT::Architectures=$arch"
)
# (as root apt would hand the download to its user _apt, who may not write here)
[ "$(id -u)" -eq 0 ] && apt_options+=(-o APT::Sandbox::User=root)

# The downloads (about 1 GB) and the scratch files go, whatever happens.
check=
trap 'rm -rf "$staging" ${check:+"$check"}' EXIT
started=$SECONDS
echo "$me: reading trixie's package lists from $mirror"
# (apt-get update exits 0 when it could fetch no list: it only warns)
if ! apt-get -q "${apt_options[@]}" update > "$staging/update.log" 2>&1 ||
   grep -Eq '^(E:|W: Failed to fetch)' "$staging/update.log"; then
    grep -E '^(E|W):' "$staging/update.log" >&2 || tail -n 5 "$staging/update.log" >&2
    reason=$(grep -m 1 -E '^(E|W):' "$staging/update.log" | sed 's/^[EW]: //') || true
    die "could not read trixie's package lists from $mirror (${reason:-apt-get update failed})"
fi
grep -E '^(W|E):' "$staging/update.log" >&2 || true
echo "$me: downloading ${packages[*]}"
(cd "$debs" && apt-get -q "${apt_options[@]}" download "${packages[@]}") > "$staging/download.log" 2>&1 || {
    tail -n 5 "$staging/download.log" >&2
    die "downloading ${packages[*]} from $mirror failed"
}
downloaded_mb=$(( $(du -sb "$debs" | cut -f1) / 1000000 ))
echo "$me: downloaded $downloaded_mb MB in $((SECONDS - started)) s"

# unpack PACKAGE PATH...: only those paths of PACKAGE's files (tar
# wildcards), into $root; the .deb is deleted once read.
unpack() {
    local package=$1; shift
    local found=("$debs/${package}_"*.deb)
    local deb=${found[0]}
    [ -f "$deb" ] || die "$package was not downloaded"
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$root" --wildcards "$@" ||
        die "unpacking $(basename "$deb") failed"
    rm -f "$deb"
}
echo "$me: unpacking what a compile and a link need"
toolkit=./usr/lib/nvidia-cuda-toolkit
tools=(ptxas fatbinary cudafe++ nvlink bin2c cuobjdump nvprune __nvcc_device_query)
unpack nvidia-cuda-toolkit "$toolkit/bin/nvcc" "$toolkit/bin/cicc" "$toolkit/bin/crt/*" \
    "$toolkit/bin/gcc" "$toolkit/bin/g++" "$toolkit/libdevice/*" \
    "${tools[@]/#/./usr/bin/}"
libs='./usr/lib/*-linux-gnu'
unpack nvidia-cuda-dev './usr/include/*' "$libs/libcudart_static.a" "$libs/libcudadevrt.a" \
    "$libs/libculibos.a" "$libs/stubs/libcublas.so" "$libs/stubs/libcublasLt.so" "$libs/stubs/libcuda.so"
for package in libcub-dev libcu++-dev libthrust-dev; do unpack "$package" './usr/include/*'; done

# NVIDIA's layout, which nvcc.profile below describes: bin/ (nvcc and the
# tools it runs), nvvm/ (cicc, libdevice), include/, lib64/ (lib64/stubs:
# what links against libcuda and libcublas where neither is installed), and
# host/, the packaging's gcc and g++: each runs the newest g++ that CUDA
# 12.4 accepts (13 down to 6), so a system whose g++ is newer still works.
lib=$(echo "$root"/usr/lib/*-linux-gnu)
mkdir -p "$dir/bin/crt" "$dir/nvvm/bin" "$dir/nvvm/libdevice" "$dir/lib64/stubs" "$dir/host"
mv "$root/${toolkit#./}/bin/nvcc" "$dir/bin/"
mv "$root/${toolkit#./}/bin/crt/"* "$dir/bin/crt/"
for tool in "${tools[@]}"; do mv "$root/usr/bin/$tool" "$dir/bin/"; done
mv "$root/${toolkit#./}/bin/cicc" "$dir/nvvm/bin/"
mv "$root/${toolkit#./}/libdevice/"* "$dir/nvvm/libdevice/"
mv "$root/${toolkit#./}/bin/gcc" "$root/${toolkit#./}/bin/g++" "$dir/host/"
mv "$root/usr/include" "$dir/include"
mv "$lib/libcudart_static.a" "$lib/libcudadevrt.a" "$lib/libculibos.a" "$dir/lib64/"
mv "$lib/stubs/"* "$dir/lib64/stubs/"
cat > "$dir/bin/nvcc.profile" <<'EOF'
# Written by tools/fetch_cuda12.sh: NVIDIA's layout, relative to this folder.
TOP              = $(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
PATH            += $(TOP)/nvvm/bin:$(_HERE_):$(TOP)/host:
INCLUDES        +=  "-I$(TOP)/include" $(_SPACE_)
LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/lib64/stubs" "-L$(TOP)/lib64"
CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
EOF
rm -rf "$staging"

# The proof: a kernel, the runtime and cuBLAS, compiled and linked.
version=$("$dir/bin/nvcc" --version 2>&1 | sed -n 's/.*release \([0-9.]*\), V\([0-9.]*\).*/\2/p') || true
case $version in
    12.*) ;;
    *) says=$("$dir/bin/nvcc" --version 2>&1 | tail -n 1) || true
       die "$dir/bin/nvcc does not run or is not CUDA 12 (it says: $says)" 3 ;;
esac
check=$(mktemp -d)
cat > "$check/check.cu" <<'EOF'
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cub/block/block_reduce.cuh>
__global__ void twice(float *x) { x[threadIdx.x] *= 2.0f; }
int main() {
    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;
    float *x;
    if (cudaMalloc(&x, 32 * sizeof *x) != cudaSuccess) return 1;
    twice<<<1, 32>>>(x);
    return cudaDeviceSynchronize() != cudaSuccess;
}
EOF
if ! "$dir/bin/nvcc" -arch=sm_75 "$check/check.cu" -lcublas -o "$check/check" > "$check/log" 2>&1; then
    cat "$check/log" >&2
    die "$dir/bin/nvcc (CUDA $version) is unpacked but does not compile and link a test program" 3
fi
echo "CUDA $version (Debian trixie's nvidia-cuda-toolkit), fetched $(date -u +%Y-%m-%d) by tools/fetch_cuda12.sh" \
    > "$dir/$done_stamp"
rm -f "$dir/$partial_stamp"
echo "$me: $dir/bin/nvcc is CUDA $version ($(( $(du -sb "$dir" | cut -f1) / 1000000 )) MB in $dir; $((SECONDS - started)) s in all)"
