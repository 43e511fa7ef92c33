# tests/suites/71-listings.sh - the book's listings: each worth showing.
#
# Every chapter, woven as the book weaves it (tests/book/listings.py): no
# listing of only #pragma once or #include lines, every listing under a note
# naming its file, no function shown whole twice, every change (a function
# after `// book:changes FILE FUNCTION`, shown as a diff against FUNCTION of
# FILE) true to both files. Then the check's own failures, on mutated
# weaves, and the weaver's changes on a small fixture: the diff, the prose
# inside the function kept in place, a faithful weave, and each wrong
# marker stopping the weave with its file and line; a rewrite whose diff
# would be longer than the function shown marked, and the check catching
# a diff that long and a marked change that lies.
# test-runner: about 10 s

scratch=build/listings-tests
weave=build/book/weave
rm -rf "$scratch"
mkdir -p "$scratch"

expect_status "the weaver builds" 0 make --no-print-directory $weave

# ------------------------------------------------------------ the chapters
woven=()
for folder in chapters/[0-9][0-9]-*/; do
    folder=${folder%/}
    main="$folder/${folder#chapters/[0-9][0-9]-}.cu"
    out=$scratch/$(basename "$folder").md
    $weave chapter --keep-placeholders "$main" > "$out" 2>/dev/null || fail "weave $main"
    woven+=("$out")
done
expect_status "every chapter's listings are worth showing (tests/book/listings.py)" 0 \
    python3 tests/book/listings.py "${woven[@]}"
expect_output "the chapters show some functions as changes" "^[1-9][0-9]*$" \
    sh -c "cat ${woven[*]} | grep -c '^::: {\.changed-from'"
expect_status "no #pragma once shown in any chapter" 1 \
    sh -c "cat ${woven[*]} | grep -q '^#pragma once'"
for out in "${woven[@]}"; do  # the chapter's own files that hold changes: still faithful
    for file in $(grep -o '{\.diff \.change[^}]* source="chapters/[^"]*"' "$out" | sort -u |
                  sed 's/.*source="//; s/"$//'); do
        expect_status "faithful weave with changes: $file" 0 awk -f tests/book/faithful.awk "$file" "$out"
    done
done

# ------------------------------------------------------------ the check fails where it should
ch3=$scratch/03-registers.md
# a function shown whole a second time: chapter 2's kernel, again in chapter 3
awk '/^``` \{\.cuda .*naive\.cuh"\}$/ && !done { grab = 1 } grab { print > "/dev/stderr" }
     grab && /^```$/ { grab = 0; done = 1 }' $scratch/02-naive.md 2> $scratch/kernel.md >/dev/null
{ cat $ch3; echo; echo '::: {.source-file source="chapters/02-naive/naive.cuh"}'; echo ':::'; cat $scratch/kernel.md; } \
    > $scratch/again.md
expect_failure "the check catches a function shown again unchanged" "shown again unchanged" \
    python3 tests/book/listings.py $scratch/02-naive.md $scratch/again.md
# a comment opened in an added line and closed in a kept one: the filter
# colours each run alone (book/changes.lua), so the check refuses it
sed 's|^+static __global__ void __launch_bounds__(256)$|+static __global__ void __launch_bounds__(256) /* opened here|' \
    $ch3 > $scratch/split-comment.md
expect_failure "the check catches a comment split between a change's runs" "a comment split between runs" \
    python3 tests/book/listings.py $scratch/split-comment.md
printf '\n``` {.cuda .numberLines startFrom="44" source="chapters/03-registers/registers.cuh"}\n#pragma once\n```\n' \
    > $scratch/pragma.md
cat $ch3 $scratch/pragma.md > $scratch/pragma-book.md
expect_failure "the check catches a listing of only #pragma once" "only '#pragma once'" \
    python3 tests/book/listings.py $scratch/pragma-book.md
printf '\n``` {.cuda .numberLines startFrom="7" source="common/device/async_copy.h"}\nint x;\n```\n' \
    > $scratch/unnamed.md
expect_failure "the check catches a listing whose file is not named" "under no note naming its file" \
    python3 tests/book/listings.py $scratch/unnamed.md
# a change that lies: a removed line altered (chapter 8's change of
# vectorized_refuses), an added line dropped (chapter 3's of naive_refuses):
# two changes shown as diffs, not marked
ch8=$scratch/08-tensor.md
expect_output "... (those two changes are diffs)" '^2$' sh -c \
    "grep -h '^Changes \`\(naive\|vectorized\)_refuses\`.*: \`-\` lines removed' $ch3 $ch8 | wc -l"
awk '/^-    if \(size\.HS % 4 != 0\) \{$/ && !done { sub(/% 4/, "% 8"); done = 1 } 1' $ch8 > $scratch/removed.md
expect_failure "the check catches a removed line the old function does not have" "not the old line" \
    python3 tests/book/listings.py $scratch/removed.md
awk '/^Changes `naive_refuses`/ { armed = 1 } armed && /^\+/ && !done { done = 1; next } 1' $ch3 > $scratch/dropped.md
expect_failure "the check catches a change that drops an added line" "chapters/03-registers/registers.cuh:[0-9]+" \
    python3 tests/book/listings.py $scratch/dropped.md
expect_failure "... and so does the faithfulness check" "missing from the book|shows" \
    awk -f tests/book/faithful.awk chapters/03-registers/registers.cuh $scratch/dropped.md

# ------------------------------------------------------------ the weaver's changes, on a fixture
fixture=$scratch/chapters/02-step
mkdir -p $fixture $scratch/chapters/01-first $scratch/chapters/03-rewrite $scratch/chapters/04-small
cat > $scratch/chapters/01-first/first.cu <<'EOF'
/*md
# First
*/

/* Steps each. */
static void step(int *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] += 1;
    x[0] = 0;
    x[1] = 1;
    x[2] = 2;
    x[3] = 3;
    x[4] = 4;
    x[5] = 5;
    x[6] = 6;
    x[7] = 7;
    x[8] = 8;
    x[9] = 9;
}
EOF
cat > $fixture/step.cu <<'EOF'
/*md
# Second
*/

#pragma once

#include <stdio.h>

// book:changes build/listings-tests/chapters/01-first/first.cu step
/* Steps each. */
static void step(int *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] += 2;
    x[0] = 0;
    x[1] = 1;
    x[2] = 2;
    x[3] = 3;
    x[4] = 4;
    x[5] = 5;
    x[6] = 6;
    /*md
PROSE_INSIDE
    */
    x[7] = 7;
    x[8] = 8;
    x[9] = 9;
    x[10] = 10;
}

static void after(void)
{
}
EOF
expect_status "book:changes: the fixture weaves" 0 \
    sh -c "$weave chapter --keep-placeholders $fixture/step.cu > $scratch/step.md"
expect_output "... a note names the function it changes and its lines" \
    'Changes `step` .*first\.cu`, lines 5 to 20\)' cat $scratch/step.md
expect_output "... the changed lines as a diff" '^\+        x\[i\] \+= 2;$' cat $scratch/step.md
expect_output "... the removed ones too" '^-        x\[i\] \+= 1;$' cat $scratch/step.md
expect_output "... the prose inside the function stays between its parts" "^2$" \
    sh -c "grep -n 'PROSE_INSIDE\|{\.diff' $scratch/step.md | head -3 | grep -c diff"
expect_output "... lines far from a change are left out" "^0$" \
    sh -c "grep -c '^ *x\[4\] = 4;' $scratch/step.md"
expect_output "... the function after the change is shown whole" '^static void after\(void\)$' \
    cat $scratch/step.md
expect_status "... the marker and #pragma once are not shown" 1 \
    grep -q 'book:changes\|#pragma once' $scratch/step.md
expect_status "... faithful" 0 awk -f tests/book/faithful.awk $fixture/step.cu $scratch/step.md
expect_status "... and true to both files" 0 python3 tests/book/listings.py $scratch/step.md
sed 's/first.cu step$/first.cu no_such/' $fixture/step.cu > $fixture/missing.cu
expect_failure "book:changes: a function the file lacks stops the weave, naming the marker" \
    "missing\.cu:9: book:changes: .*no definition of no_such\(\)" \
    $weave chapter --keep-placeholders $fixture/missing.cu
sed 's/first.cu step$/first.cu/' $fixture/step.cu > $fixture/short.cu
expect_failure "book:changes: a marker without its function says how to write it" \
    "short\.cu:9: write // book:changes FILE FUNCTION" $weave chapter --keep-placeholders $fixture/short.cu
sed 's|^// book:changes .*|// book:changes build/listings-tests/chapters/01-first/first.cu step|; s/x\[[0-9]\] = [0-9];/y();/' \
    $fixture/step.cu | sed 's/x\[i\] += 2;/z();/; s/for (int i = 0; i < n; i++)/while (0)/; s|Steps each|Calls y|; s/void step(/void fresh(/' \
    > $fixture/new.cu
expect_failure "book:changes: a function that keeps nothing of the old one is new, and says so" \
    "new\.cu:9: book:changes: the function below keeps no line" $weave chapter --keep-placeholders $fixture/new.cu
expect_output "book:changes: a step's rename (naive_ to registers_) marks no line by itself" \
    '^::: \{\.changed-from source="chapters/02-naive/naive\.cuh" first="[0-9]+" last="[0-9]+" renamed="naive_ registers_"\}$' \
    cat $scratch/03-registers.md
expect_status "... so chapter 2's first_query line is kept, as chapter 3 writes it" 0 \
    grep -q '^     const int first_query = registers_first_query(threadIdx.y, blockIdx.y);$' $scratch/03-registers.md
expect_output "book:changes: a change of a function of the same chapter names no chapter" \
    '^Changes `tf32_scores` \(`chapters/08-tensor/tensor\.cuh`, lines' cat $scratch/08-tensor.md
expect_output "{{listing|FILE|FUNCTION|changes|OLD_FILE|OLD_FUNCTION}}: a listing as a change" \
    '^``` \{\.diff \.change( \.marked \.numberLines startFrom="[0-9]+")? source="common/device/wgmma\.h" first="[0-9]+" last="[0-9]+" from="common/device/wgmma\.h"\}$' \
    cat $scratch/12-roles.md
printf '{{listing|common/device/wgmma.h|wgmma_fence|changes|common/device/wgmma.h}}\n' > $scratch/bad-listing.md
expect_failure "... written without its old function, it says how to write it" \
    "bad-listing\.md:1: .*\{\{listing\|FILE\|FUNCTION\|changes\|OLD_FILE\|OLD_FUNCTION\}\}" \
    $weave prose $scratch/bad-listing.md

# ------------------------------------------------------------ a rewrite, marked
# A change whose diff would be longer than the new function (change_is_marked):
# the function whole, its added lines `+`, the removed ones counted in the note.
cat > $scratch/chapters/03-rewrite/rewrite.cu <<'EOF'
/*md
# Third
*/

// book:changes build/listings-tests/chapters/01-first/first.cu step
/* Steps each. */
static void step3(int *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] += 1;
    for (int i = 0; i < 10; i++)
        x[i] = i;
}
EOF
expect_status "a rewrite: the fixture weaves" 0 \
    sh -c "$weave chapter --keep-placeholders $scratch/chapters/03-rewrite/rewrite.cu > $scratch/rewrite.md"
expect_output "... its diff (20 lines) longer than the function (8): shown whole, the removed lines counted" \
    '^Changes `step` .*first\.cu`, lines 5 to 20\), shown whole: the lines on green are new or rewritten, 11 lines of the old one gone\.$' \
    cat $scratch/rewrite.md
expect_output "... one block, numbered as the file is" \
    '^``` \{\.diff \.change \.marked \.numberLines startFrom="6" source="[^"]*rewrite\.cu" first="6" last="13"' \
    cat $scratch/rewrite.md
expect_output "... the rewritten lines marked +" '^\+static void step3\(int \*x, int n\)$' cat $scratch/rewrite.md
expect_output "... the kept ones as they are" '^     for \(int i = 0; i < n; i\+\+\)$' cat $scratch/rewrite.md
expect_status "... no removed line shown" 1 grep -q '^-' $scratch/rewrite.md
expect_output "... 8 lines, not 20" "^8$" sh -c "sed -n '/^\`\`\` {\.diff/,/^\`\`\`\$/p' $scratch/rewrite.md | grep -c '^[ +]'"
expect_status "... faithful" 0 awk -f tests/book/faithful.awk $scratch/chapters/03-rewrite/rewrite.cu $scratch/rewrite.md
expect_status "... and true to both files (tests/book/listings.py)" 0 python3 tests/book/listings.py $scratch/rewrite.md
sed 's/marked="11"/marked="3"/' $scratch/rewrite.md > $scratch/miscounted.md
expect_failure "the check catches a marked change that miscounts what is gone" \
    'marked="3", but 11 lines of the old function are gone' python3 tests/book/listings.py $scratch/miscounted.md
awk '/^     for \(int i = 0; i < n; i\+\+\)$/ { sub(/^ /, "+") } 1' $scratch/rewrite.md > $scratch/unkept.md
expect_failure "... and one that marks a kept line as new" 'lines of the old function are gone' \
    python3 tests/book/listings.py $scratch/unkept.md
# the diff a weaver without the rule would print: 6 lines for a function of 4
printf 'int f(int x)\n{\n    return x + 1;\n}\n' > $scratch/chapters/01-first/small.cu
printf '%s\n' '// book:changes build/listings-tests/chapters/01-first/small.cu f' 'int f(int x)' '{' \
    '    return x + 2;' '}' > $scratch/chapters/04-small/small.cu
printf '%s\n' '::: {.source-file source="build/listings-tests/chapters/04-small/small.cu"}' ':::' \
    '::: {.changed-from source="build/listings-tests/chapters/01-first/small.cu" first="1" last="4"}' \
    'Changes `f`.' ':::' '' \
    '``` {.diff .change source="build/listings-tests/chapters/04-small/small.cu" first="2" last="5" from="x"}' \
    '@@ -1,4 +2,4 @@' ' int f(int x)' ' {' '-    return x + 1;' '+    return x + 2;' ' }' '```' > $scratch/long-diff.md
expect_failure "the check catches a diff longer than its function (6 lines for 4)" \
    'a diff of 6 lines for a function of 4: show it marked' python3 tests/book/listings.py $scratch/long-diff.md
expect_output "... which the weaver shows marked" '^``` \{\.diff \.change \.marked \.numberLines startFrom="2"' \
    $weave chapter --keep-placeholders $scratch/chapters/04-small/small.cu
expect_output "the chapters' changes: some as diffs no longer than their function, some marked" "^[1-9][0-9]* [1-9][0-9]*$" \
    sh -c "echo \$(cat ${woven[*]} | grep -c '^::: {\.changed-from.* marked=') \$(cat ${woven[*]} | grep '^::: {\.changed-from' | grep -vc ' marked=')"

# ------------------------------------------------------------ a change in the PDF's text
# tests/book/tex_left.sh (suite 70's check for TeX left in the PDF) reads a
# change's lines as code, as it reads a listing's, and the prose after as prose
printf 'before\n@@ -1,2 +1,2 @@\n-    s = "\\n.reg";\n+    s = "\\n.reg .pred";\n \\f\n147\n\f+    t = "\\setp";\nafter the change, \\frac left\n' \
    > $scratch/change.txt
expect_output "tex_left.sh: a change's lines are code, the prose after it still counts" \
    '^build/listings-tests/change\.txt:8:after the change, \\frac left$' tests/book/tex_left.sh text $scratch/change.txt
