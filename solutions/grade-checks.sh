# solutions/grade-checks.sh - what an exercise is graded on, for the grader
# (solutions/grade.sh sources it): the table of checks (solutions/checks.list)
# read and expanded, the sizes drawn from the grading's seed, and each
# exercise's tolerance. It needs the grading's seed ($seed) and the sizes of
# bench/sizes.sh.

. bench/sizes.sh || exit 2

# The large-logit check's size: a softmax that does not subtract its
# maximum overflows here (the logit of largest magnitude is scaled to +90,
# past where expf overflows, 88.7, and with every key kept it is one the
# softmax weighs).
LOGITS_SIZE="B=2 S=33 N=9 D=64 H=2 mask=kept --logits 90"
# How far a prediction may be from the measured time, either way.
PREDICTION_FACTOR=2

# Each exercise's own stream of draws from the grading's seed (a linear
# congruential generator in shell arithmetic: the same draws on every
# machine), so that SEED=N EX=NAME repeats what a whole grading drew for NAME.
draw_state=0
start_draws() { draw_state=$(printf '%s %s' "$seed" "$1" | cksum | cut -d ' ' -f 1); }
# draw LOW HIGH: a whole number in [LOW, HIGH], in REPLY.
draw() {
    draw_state=$(( (draw_state * 1103515245 + 12345) % 2147483648 ))
    REPLY=$(( $1 + (draw_state >> 8) % ($2 - $1 + 1) ))
}
# A triangle size of what an exercise promises: T a multiple of TSTEP up to
# 512 (any T to 600 for TSTEP 1), HS a multiple of HSTEP up to HSMAX.
drawn_triangle() {
    local tstep=$1 hstep=$2 hsmax=$3 B NH HS T
    draw 1 3; B=$REPLY; draw 1 4; NH=$REPLY
    draw 1 $((hsmax / hstep)); HS=$((REPLY * hstep))
    if [ "$tstep" -eq 1 ]; then draw 1 600; T=$REPLY; else draw 1 $((512 / tstep)); T=$((REPLY * tstep)); fi
    echo "B=$B T=$T C=$((NH * HS)) NH=$NH"
}
# An MSA size the chapter 6 layer holds: S <= 64, D <= 128 a multiple of H.
drawn_msa() {
    local B S N D H
    draw 1 3; B=$REPLY; draw 1 64; S=$REPLY; draw 1 40; N=$REPLY
    draw 1 8; H=$REPLY; draw 1 $((128 / H)); D=$((REPLY * H))
    echo "B=$B S=$S N=$N D=$D H=$H"
}
new_seed() { draw 0 2147483647; echo "$REPLY"; }

# The words in braces of checks.list, spelled out (its header says what
# each stands for).
expand_check() {
    local text=$1
    local ld=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld
    local st=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st
    text=${text//\{ts\}/${TRIANGLE_SANITIZE[0]}}
    text=${text//\{ms\}/${MSA_SANITIZE[0]}}
    text=${text//\{logits\}/$LOGITS_SIZE}
    text=${text//\{ld\}/$ld}
    text=${text//\{st\}/$st}
    text=${text//\{v4\}/'ld\.global[.a-zA-Z0-9_:]*\.v4\.[fbu]32'}
    text=${text//\{v2\}/'ld\.global[.a-zA-Z0-9_:]*\.v2\.[fbu]32'}
    text=${text//\{s4\}/'st\.global[.a-zA-Z0-9_:]*\.v4\.[fbu]32'}
    text=${text//\{s2\}/'st\.global[.a-zA-Z0-9_:]*\.v2\.[fbu]32'}
    while [[ $text =~ \{(tg|mg)\ ([0-9]+)\} ]]; do
        local sizes="TRIANGLE_GRADE[${BASH_REMATCH[2]}]"
        [ "${BASH_REMATCH[1]}" = mg ] && sizes="MSA_GRADE[${BASH_REMATCH[2]}]"
        text=${text//"${BASH_REMATCH[0]}"/${!sizes}}
    done
    printf '%s\n' "$text"
}

# checks_of NAME: what exercise NAME is graded on, one check a line (fields
# separated by |, as grade.sh's checks read them): the lines of
# solutions/checks.list for NAME's exercise, or of the first pattern that
# matches it, each expanded; triangle-values and msa-values become a values
# line for each size of bench/sizes.sh and two drawn ones.
checks_of() {
    local exercise=${1%%--*} who kind rest chosen="" size
    while IFS='|' read -r who kind rest; do
        case $who in ''|'#'*) continue ;; esac
        if [ -z "$chosen" ]; then
            # shellcheck disable=SC2254 # (a pattern of the table)
            case $exercise in $who) chosen=$who ;; *) continue ;; esac
        fi
        [ "$who" = "$chosen" ] || continue
        case $kind in
            triangle-values)
                for size in "${TRIANGLE_GRADE[@]}"; do echo "values|$size"; done
                echo "drawn|triangle $rest"; echo "drawn|triangle $rest" ;;
            msa-values)
                for size in "${MSA_GRADE[@]}"; do echo "values|$size"; done
                echo "drawn|msa"; echo "drawn|msa" ;;
            *) expand_check "$kind${rest:+|$rest}" ;;
        esac
    done < solutions/checks.list
}

# The largest relative L2 error the values of exercise NAME may have. The
# library's tolerance (1e-5 for FP32, 2e-3 for TF32) is the chapters'; an
# exercise whose own error is far under it is held to about ten times its
# error as measured on the H200 (plots/data/accuracy/: FP32 triangle kernels
# at most 2.1e-7, the FP32 MSA layers 1e-7, and 7e-7 at logits 90, 3xTF32
# 9.2e-7, TF32 2.7e-4), so that an answer whose error hides under the
# chapters' tolerance fails.
tolerance_of() {
    case ${1%%--*} in
        08-*) echo 1e-3 ;;
        09-*) echo 4e-6 ;;
        *) echo 2e-6 ;;
    esac
}
