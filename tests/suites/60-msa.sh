# tests/suites/60-msa.sh - chapter 6, MSA column attention: the command
# line's refusals and the .npy files' errors (no GPU needed), then the GPU
# checks at several sizes, the .npy round trip, and the mutant the check
# must reject.
# test-runner: about 40 s

msa_dir=$LOGS/msa-npy
rm -rf "$msa_dir"
mkdir -p "$msa_dir"

# msa_write_inputs DIR B S N D: all eleven inputs with consistent shapes.
msa_write_inputs() {
    local dir=$1 B=$2 S=$3 N=$4 D=$5
    mkdir -p "$dir"
    msa_write_npy "$dir/msa.npy" "($B, $S, $N, $D)" $((B * S * N * D))
    msa_write_npy "$dir/mask.npy" "($B, $S, $N)" $((B * S * N))
    for name in ln_gamma ln_beta bg bo; do msa_write_npy "$dir/$name.npy" "($D,)" "$D"; done
    for name in wq wk wv wg wo; do msa_write_npy "$dir/$name.npy" "($D, $D)" $((D * D)); done
}

ch6=build/chapter6
expect_status "chapter6 --help exits 0" 0 $ch6 --help
expect_status "chapter6 --list exits 0" 0 $ch6 --list
expect_output "chapter6 lists the fused kernel" "[0-9] fused \(chapter 6\)" $ch6 --list
expect_status "chapter6 rejects an unknown size key" 2 $ch6 T=64
expect_status "chapter6 rejects a malformed size" 2 $ch6 S=8x
expect_status "chapter6 rejects D not a multiple of H" 2 $ch6 D=64 H=3
expect_status "fused refuses S=65" 2 $ch6 --kernel fused S=65
expect_output "the S refusal names the limit" "S at most 64" $ch6 --kernel fused S=65
expect_status "fused refuses D=96" 2 $ch6 --kernel fused D=96 H=4
expect_status "fused refuses H=16" 2 $ch6 --kernel fused D=64 H=16
expect_status "fused refuses S=65 with --only-new" 2 $ch6 --only-new S=65

# Products of sizes that wrap a 64-bit long (B*S*N*D below is 2^70) and
# rows past the int the kernels index rows with: refused on any machine.
expect_status "chapter6 refuses sizes whose products wrap 64 bits" 2 \
    $ch6 B=1073741824 S=1073741824 N=16 D=64 --kernel unfused
expect_output "the wrapped product is named with the int limit" \
    "B\*S\*N = 2\^64 or more rows is more than the 2147483647" \
    $ch6 B=1073741824 S=1073741824 N=16 D=64 --kernel unfused
expect_status "chapter6 refuses 2^31 rows (B*S*N)" 2 $ch6 B=2 S=1073741824 N=1 D=1 H=1 --kernel unfused
expect_output "the rows refusal names the limit" "B\*S\*N = 2147483648 rows is more than the 2147483647" \
    $ch6 B=2 S=1073741824 N=1 D=1 H=1 --kernel unfused
expect_status "chapter6 refuses a size given twice" 2 $ch6 S=8 S=16
expect_status "chapter6 refuses a run no host memory holds" 2 $ch6 B=64 S=1024 N=1024 D=1024 H=8 --kernel unfused
expect_output "the refusal names host memory" "of host memory" $ch6 B=64 S=1024 N=1024 D=1024 H=8 --kernel unfused

expect_status "--load of a missing directory exits 2" 2 $ch6 --load "$msa_dir/none"
msa_write_inputs "$msa_dir/good" 1 4 3 32
printf 'not a numpy file' > "$msa_dir/good-garbage"
mkdir -p "$msa_dir/garbage" && cp "$msa_dir"/good/*.npy "$msa_dir/garbage/"
cp "$msa_dir/good-garbage" "$msa_dir/garbage/msa.npy"
expect_status "--load of a malformed msa.npy exits 2" 2 $ch6 --load "$msa_dir/garbage" H=2
expect_output "the malformed file is named" "msa.npy: not a .npy file" $ch6 --load "$msa_dir/garbage" H=2
mkdir -p "$msa_dir/float64" && cp "$msa_dir"/good/*.npy "$msa_dir/float64/"
msa_write_npy "$msa_dir/float64/wq.npy" "(32, 32)" 2048 "<f8"
expect_output "--load refuses float64" "wq.npy: dtype '<f8' is not" $ch6 --load "$msa_dir/float64" H=2
mkdir -p "$msa_dir/fortran" && cp "$msa_dir"/good/*.npy "$msa_dir/fortran/"
msa_write_npy "$msa_dir/fortran/wk.npy" "(32, 32)" 1024 "<f4" True
expect_status "--load refuses Fortran order" 2 $ch6 --load "$msa_dir/fortran" H=2
mkdir -p "$msa_dir/short" && cp "$msa_dir"/good/*.npy "$msa_dir/short/"
head -c 200 "$msa_dir/good/wv.npy" > "$msa_dir/short/wv.npy"
expect_output "--load refuses a truncated file" "wv.npy: holds 72 bytes of data" $ch6 --load "$msa_dir/short" H=2
mkdir -p "$msa_dir/mismatch" && cp "$msa_dir"/good/*.npy "$msa_dir/mismatch/"
msa_write_npy "$msa_dir/mismatch/mask.npy" "(1, 4, 2)" 8
expect_status "--load of a mismatched mask exits 2" 2 $ch6 --load "$msa_dir/mismatch" H=2
expect_output "the mismatch is explained" "mask.npy has shape \(1, 4, 2\), expected \(1, 4, 3\)" \
    $ch6 --load "$msa_dir/mismatch" H=2
expect_status "--load disagreeing with S= on the command line exits 2" 2 \
    $ch6 --load "$msa_dir/good" S=8 H=2
expect_status "--load with sizes the kernel refuses exits 2" 2 $ch6 --kernel fused --load "$msa_dir/good" H=32
gpu_expect "chapter6 runs on well-formed files" 0 $ch6 --load "$msa_dir/good" H=2 --check-only

# --load reads regular files only, each .npy header before its data (a
# header that is wrong, or that does not match the file's size, is refused
# without reading the data; the runs are bounded by timeout in case one
# reads on and on), never a path cut short, and no mask with NaN or inf.
long_load=$msa_dir/$(printf 'long/%.0s' $(seq 1000))
expect_output "--load refuses a path longer than the program's buffer" "is longer than" \
    $ch6 --load "$long_load"
msa_load_case() { # msa_load_case NAME: a copy of the good inputs, less msa.npy
    rm -rf "$msa_dir/$1" && mkdir -p "$msa_dir/$1" && cp "$msa_dir"/good/*.npy "$msa_dir/$1/"
    rm -f "$msa_dir/$1/msa.npy"
}
msa_load_case dir-msa && mkdir "$msa_dir/dir-msa/msa.npy"
expect_status "--load refuses a directory named msa.npy" 2 timeout 60 $ch6 --load "$msa_dir/dir-msa" H=2
expect_output "the directory is named as not a regular file" "msa.npy: a directory, not a regular file" \
    timeout 60 $ch6 --load "$msa_dir/dir-msa" H=2
msa_load_case zero-msa && ln -s /dev/zero "$msa_dir/zero-msa/msa.npy"
expect_status "--load refuses /dev/zero as msa.npy" 2 timeout 60 $ch6 --load "$msa_dir/zero-msa" H=2
expect_output "the device is named as not a regular file" \
    "msa.npy: a character device, not a regular file" timeout 60 $ch6 --load "$msa_dir/zero-msa" H=2
msa_load_case fifo-msa && mkfifo "$msa_dir/fifo-msa/msa.npy"
expect_status "--load refuses a FIFO as msa.npy (and does not wait on it)" 2 \
    timeout 20 $ch6 --load "$msa_dir/fifo-msa" H=2
msa_load_case huge-f8 && msa_write_npy "$msa_dir/huge-f8/msa.npy" "(1, 4, 3, 32)" 0 "<f8"
truncate -s +16G "$msa_dir/huge-f8/msa.npy" # sparse: 16 GB the reader must not read
expect_output "--load refuses a float64 header before reading 16 GB of data" "msa.npy: dtype '<f8'" \
    timeout 60 $ch6 --load "$msa_dir/huge-f8" H=2
msa_load_case huge-f4 && msa_write_npy "$msa_dir/huge-f4/msa.npy" "(1, 4, 3, 32)" 0
truncate -s +16G "$msa_dir/huge-f4/msa.npy"
expect_output "--load compares a header's shape with the file's size before reading" \
    "msa.npy: holds 17179869184 bytes of data, but its shape needs 1536" \
    timeout 60 $ch6 --load "$msa_dir/huge-f4" H=2
rm -f "$msa_dir"/huge-f?/msa.npy
# msa_poison_mask DIR INDEX BYTES: mask.npy of DIR keeps every key but
# element INDEX, which is the float32 whose little-endian bytes are BYTES.
msa_poison_mask() {
    rm -rf "$1" && mkdir -p "$1" && cp "$msa_dir"/good/*.npy "$1/"
    msa_write_npy "$1/mask.npy" "(1, 4, 3)" 12 "<f4" False one
    local size; size=$(stat -c %s "$1/mask.npy")
    printf "$3" | dd of="$1/mask.npy" bs=1 seek=$((size - 48 + 4 * $2)) conv=notrunc 2>/dev/null
}
msa_poison_mask "$msa_dir/nan-mask" 5 '\000\000\300\177'
expect_status "--load refuses a mask holding NaN" 2 $ch6 --load "$msa_dir/nan-mask" H=2
expect_output "the NaN is named with its file and element" \
    "mask.npy: element 5 \(b=0, s=1, n=2\) is nan" $ch6 --load "$msa_dir/nan-mask" H=2
msa_poison_mask "$msa_dir/inf-mask" 0 '\000\000\200\377'
expect_output "--load refuses a mask holding -inf, and names it" \
    "mask.npy: element 0 \(b=0, s=0, n=0\) is -inf" $ch6 --load "$msa_dir/inf-mask" H=2
msa_poison_mask "$msa_dir/half-mask" 5 '\000\000\000\077'
gpu_expect "--load accepts a mask of 0.5 (kept, as any nonzero value is)" 0 \
    $ch6 --load "$msa_dir/half-mask" H=2 --check-only
expect_output "README.md says what a mask value other than 0 and 1 means" \
    "any other value keeps" cat README.md

# --save DIR and --csv FILE are checked before any GPU work (exit 2 up
# front, not exit 1 after the run); a good --save reaches the GPU check and
# creates nothing until there is something to save.
printf 'a file\n' > "$msa_dir/regular"
expect_status "--save into a directory that does not exist exits 2" 2 $ch6 --save /nonexistent-dir/out
expect_output "the --save refusal names the missing parent" \
    "--save: /nonexistent-dir/out: .*/nonexistent-dir does not exist" $ch6 --save /nonexistent-dir/out
expect_status "--save naming a regular file exits 2" 2 $ch6 --save "$msa_dir/regular"
expect_output "the --save refusal says it is not a directory" "regular.* is not a directory" \
    $ch6 --save "$msa_dir/regular"
expect_status "--save under a regular file exits 2" 2 $ch6 --save "$msa_dir/regular/out"
long_dir=$msa_dir/$(printf 'long/%.0s' $(seq 1000))
expect_status "--save with a path longer than the program's buffer exits 2" 2 $ch6 --save "$long_dir"
expect_output "the long --save path is refused as long" "is longer than" $ch6 --save "$long_dir"
expect_status "--csv in a directory that does not exist exits 2 (MSA)" 2 $ch6 --csv /nonexistent-dir/x.csv
gpu_expect "--save into a new directory is accepted" 0 $ch6 --check-only --save "$msa_dir/fresh-save"
if have_gpu; then
    expect_status "--save made its directory" 0 test -d "$msa_dir/fresh-save"
else
    expect_status "checking --save creates nothing when nothing runs" 1 test -e "$msa_dir/fresh-save"
fi

# On a GPU: every kernel against the referee; each size draws all-kept,
# all-masked and single-kept columns (the run prints the census).
gpu_expect "chapter6 passes at the small case" 0 $ch6 --check-only
gpu_expect "chapter6 passes at S=1 D=32 H=1" 0 $ch6 B=1 S=1 N=5 D=32 H=1 --check-only
gpu_expect "chapter6 passes at S=5 D=32 H=8 (head size 4)" 0 $ch6 B=3 S=5 N=7 D=32 H=8 --check-only
gpu_expect "chapter6 passes at S=33 D=64 H=2 (two blocks a column)" 0 $ch6 B=2 S=33 N=9 D=64 H=2 --check-only
gpu_expect "chapter6 passes at S=64 D=64 H=8 (one block a column)" 0 $ch6 B=1 S=64 N=80 D=64 H=8 --check-only
gpu_expect "chapter6 passes at S=37 D=128 H=2 (two blocks, resident)" 0 $ch6 B=2 S=37 N=11 D=128 H=2 --check-only
gpu_expect "chapter6 passes at S=64 D=128 H=1 (streamed weights)" 0 $ch6 B=1 S=64 N=5 D=128 H=1 --check-only
gpu_expect "chapter6 passes with another seed" 0 $ch6 --seed 7 --check-only
msa_census_check() {
    local log; log=$(log_of "chapter6 passes at the small case")
    if grep -q SKIPPED "$log"; then skip "the small case draws every kind of mask column" "no GPU";
    elif grep -Eq "mask columns: [1-9][0-9]* all kept, [1-9][0-9]* all masked, [1-9][0-9]* single kept" "$log"; then
        pass "the small case draws every kind of mask column"
    else fail "the small case draws every kind of mask column" "no census line" "$log"; fi
}
msa_census_check
gpu_expect "chapter6 --save writes the tensors" 0 $ch6 --kernel fused --check-only --save "$msa_dir/saved"
if [ -f "$msa_dir/saved/out.npy" ]; then
    gpu_expect "chapter6 --load reads them back" 0 $ch6 --load "$msa_dir/saved" H=4 --check-only
fi
gpu_expect "chapter6 mutant (fused forgets the mask) is rejected" 1 \
    build/chapter6-mutant --kernel fused --check-only
gpu_expect "chapter6 mutant is rejected with one block a column too" 1 \
    build/chapter6-mutant --kernel fused B=1 S=64 N=80 D=64 H=8 --check-only
expect_output "chapter6-tried lists fused+nocluster" "fused\+nocluster \(chapter 6\)" build/chapter6-tried --list
gpu_expect "chapter6-tried passes at S=16 D=64 H=4 (one block a column)" 0 \
    build/chapter6-tried B=1 S=16 N=40 D=64 H=4 --check-only

# Mask kinds (checks use drawn; benchmarks kept and pad) and the large-logit
# check: logits near 90 overflow a softmax that does not subtract its maximum.
gpu_expect "chapter6 takes mask=kept" 0 $ch6 mask=kept --check-only
gpu_expect "chapter6 takes mask=pad" 0 $ch6 mask=pad --check-only
expect_status "chapter6 refuses an unknown mask kind" 2 $ch6 mask=padded
expect_output "the mask refusal names the kinds" "mask is one of drawn kept pad" $ch6 mask=padded
expect_status "chapter6 refuses a mask kind given twice" 2 $ch6 mask=kept mask=pad
expect_status "chapter6 refuses --logits 0" 2 $ch6 --logits 0
expect_status "chapter6 refuses --input-scale (a triangle option)" 2 $ch6 --input-scale 2
expect_status "chapter6 refuses --errors into a missing folder" 2 $ch6 --errors "$msa_dir/none/e.csv"
expect_status "chapter6 refuses mask=pad with --load of a kept mask" 2 \
    $ch6 --load "$msa_dir/good" H=2 mask=pad
expect_output "... saying which mask the files hold" "holds a mask=drawn mask|holds a mask=kept mask" \
    $ch6 --load "$msa_dir/good" H=2 mask=pad
gpu_expect "chapter6 passes with every key kept" 0 $ch6 mask=kept --check-only
gpu_expect "chapter6 passes with the sequences padded" 0 $ch6 B=2 S=40 N=9 D=64 H=2 mask=pad --check-only
gpu_expect "chapter6 passes the large-logit check (logits 90)" 0 $ch6 B=2 S=33 N=9 D=64 H=2 --logits 90 --check-only
gpu_expect "chapter6 mutant-max passes the ordinary check" 0 \
    build/chapter6-mutant-max --kernel fused B=2 S=33 N=9 D=64 H=2 --check-only
gpu_expect "chapter6 mutant-max (no maximum subtracted) is rejected by the large-logit check" 1 \
    build/chapter6-mutant-max --kernel fused B=2 S=33 N=9 D=64 H=2 --logits 90 --check-only
