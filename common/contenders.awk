# common/contenders.awk - writes the main() of one chapter program from
# chapters/kernels.list: the contenders it races, in the list's order, with
# their facts. The Makefile runs it; the output goes to build/gen/.
#
#   awk -v chapter=5 -v problem=trimul -v kind=chapter -v program=chapter5 \
#       -f common/contenders.awk chapters/kernels.list > build/gen/chapter5.cu
#
# kind=chapter races the problem's champions, the best kernel of every earlier
# chapter, and chapter's own steps and best; kind=tried races the champions,
# chapter's best and its tried variants. Exits 1 (with a message) when the
# selection is empty or a line is malformed.
BEGIN {
    if (chapter == "" || problem == "" || kind !~ /^(chapter|tried)$/ || program == "") {
        print "contenders.awk: set chapter, problem, kind (chapter or tried) and program" > "/dev/stderr"
        exit 1
    }
    count = 0
}
/^[ \t]*(#|$)/ { next }
NF != 8 {
    printf "%s:%d: expected 8 columns, found %d\n", FILENAME, FNR, NF > "/dev/stderr"
    failed = 1; exit 1
}
{
    p = $1; c = $2 + 0; role = $3; pipe = $4; accuracy = $5; needs = $6; name = $7; symbol = $8
    if (role !~ /^(champion|step|best|tried|torch)$/ || pipe !~ /^(simt|tensor)$/ ||
        accuracy !~ /^(fp32|tf32)$/ || needs !~ /^sm_(75|80|90a)$/) {
        printf "%s:%d: bad role, pipe, accuracy or needs\n", FILENAME, FNR > "/dev/stderr"
        failed = 1; exit 1
    }
    if (p != problem || role == "torch" || c > chapter + 0)
        next
    if (kind == "chapter")
        wanted = role == "champion" || (c < chapter + 0 && role == "best") ||
                 (c == chapter + 0 && (role == "step" || role == "best"))
    else
        wanted = role == "champion" || (c == chapter + 0 && (role == "best" || role == "tried"))
    if (!wanted)
        next
    count++
    names[count] = name; chapters[count] = c; symbols[count] = symbol
    roles[count] = "CONTENDER_" toupper(role)
    pipes[count] = pipe == "tensor" ? "GPU_PIPE_TENSOR" : "GPU_PIPE_SIMT"
    tolerances[count] = accuracy == "tf32" ? "TOLERANCE_TF32" : "TOLERANCE_FP32"
    needs_of[count] = needs == "sm_75" ? "7, 5, 0" : needs == "sm_80" ? "8, 0, 0" : "9, 0, 1"
}
END {
    if (failed)
        exit 1
    if (count == 0) {
        printf "contenders.awk: no %s contenders for chapter %s (%s)\n", kind, chapter, problem > "/dev/stderr"
        exit 1
    }
    header = problem == "msa" ? "problems/msa.h" : "problems/triangle.h"
    type = problem == "msa" ? "msa" : "triangle"
    summary = sprintf("chapter %d, %s: %d kernels checked against the CPU referee and timed", chapter,
                      problem == "msa" ? "MSA column-wise gated attention" : "the causal-attention score triangle",
                      count)
    if (kind == "tried")
        summary = summary ", the variants the chapter tried beside its result"
    printf "/* %s main - generated from chapters/kernels.list by common/contenders.awk;\n", program
    printf " * edits here are overwritten. */\n#include \"%s\"\n\n", header
    for (k = 1; k <= count; k++)
        printf "extern const %s_kernel %s;\n", type, symbols[k]
    printf "\nstatic const %s_contender contenders[] = {\n", type
    for (k = 1; k <= count; k++)
        printf "    {{\"%s\", %d, %s, %s, %s, %s}, &%s},\n", names[k], chapters[k], roles[k], pipes[k],
               tolerances[k], needs_of[k], symbols[k]
    printf "};\n\nint main(int argc, char **argv)\n{\n"
    printf "    return %s_chapter_main(argc, argv, \"%s\", %d, \"%s\", contenders,\n", type, program, chapter, summary
    printf "                           (int)(sizeof contenders / sizeof contenders[0]));\n}\n"
}
