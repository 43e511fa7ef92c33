# common/programs.awk - the chapter programs that chapters/kernels.list
# implies, and which chapters each one links.
#
#   awk -v mode=table -v chapters="1 2 ..." -v mutants="2 3 ..." \
#       -f common/programs.awk chapters/kernels.list
#       one line per program: NAME PROBLEM CHAPTER KIND LINKED-CHAPTERS...
#   awk -v mode=make ... (the same variables)
#       the same as Makefile rules (the Makefile includes build/gen/programs.mk)
#
# chapters: the chapters that have a folder (lines of other chapters are
# ignored); mutants: "N" for each chapter with a chapters/NN-slug/mutant.patch,
# which gets build/chapterN-mutant, the program built from the patched
# sources, and "N:NAME" for each mutant-NAME.patch (build/chapterN-mutant-NAME);
# builds_on: "N:M ..." where a source of chapter N #includes chapter M's
# (chapter 9 builds its kernel on chapter 8's): N's programs then take M's
# kernels from N's own objects and do not link M's.
#
# Chapter N has one program per problem it has kernels of: build/chapterN
# (build/chapterN-PROBLEM when it has two), racing the problem's champions,
# the best kernel of every earlier chapter and its own steps and best; and,
# when it has tried variants, build/chapterN-tried (chapterN-PROBLEM-tried)
# racing the champions, its best and those variants. A program links the
# objects of every chapter one of its contenders comes from (its own always).
# A tried program links its chapter's tried/ objects instead of the chapter's
# own: a tried/ file #includes the chapter's sources it builds on, so that
# its variants use the chapter's helpers and define its best kernel too.
BEGIN {
    if (mode !~ /^(table|make)$/) {
        print "programs.awk: set mode=table or mode=make" > "/dev/stderr"
        exit 1
    }
    split(chapters, folder_list, " ")
    for (k in folder_list)
        has_folder[folder_list[k] + 0] = 1
    mutant_total = split(mutants, mutant_list, " ")
    split(builds_on, pairs, " ")
    for (k in pairs) {
        split(pairs[k], pair, ":")
        included[pair[1] + 0, pair[2] + 0] = 1
    }
}
/^[ \t]*(#|$)/ { next }
NF != 8 { printf "%s:%d: expected 8 columns\n", FILENAME, FNR > "/dev/stderr"; failed = 1; exit 1 }
$3 == "torch" || !(($2 + 0) in has_folder) { next }
{
    problem = $1; chapter = $2 + 0; role = $3
    key = chapter SUBSEP problem
    if (!(key in seen)) {
        seen[key] = 1
        problems_of[chapter] = problems_of[chapter] " " problem
        problem_count[chapter]++
        if (chapter > last_chapter)
            last_chapter = chapter
    }
    if (role == "tried")
        has_tried[key] = 1
    if (role == "champion")
        champion_chapters[problem] = champion_chapters[problem] " " chapter
    if (role == "champion" || role == "best")
        raced_chapters[problem] = raced_chapters[problem] " " chapter
}
function unique(list,    n, parts, k, out, have) {
    n = split(list, parts, " ")
    out = ""
    for (k = 1; k <= n; k++)
        if (!(parts[k] in have)) { have[parts[k]] = 1; out = out " " parts[k] }
    return out
}
# the chapters of `list` up to `most`, plus `own`, less those `most` includes
function linked(list, most, own,    n, parts, k, out) {
    n = split(unique(list " " own), parts, " ")
    out = ""
    for (k = 1; k <= n; k++)
        if (parts[k] + 0 <= most + 0 && !((most + 0, parts[k] + 0) in included))
            out = out " " parts[k]
    return out
}
function emit(name, problem, chapter, kind, chapters,    target) {
    if (mode == "table") {
        print name, problem, chapter, kind chapters
        for (m = 1; kind == "chapter" && m <= mutant_total; m++)
            if (mutant_chapter(mutant_list[m]) == chapter)
                print name "-mutant" mutant_suffix(mutant_list[m]), problem, chapter, "mutant" chapters
        return
    }
    target = "$(BUILD)/" name
    printf "%s_PROGRAMS += %s\n", kind == "tried" ? "TRIED" : "CHAPTER", target
    printf "%s: $(BUILD)/obj/gen/%s.o $(call chapter_objects,%s)%s $(LIBRARY)\n", target, name,
           chapters, kind == "tried" ? " $(call tried_objects," chapter ")" : ""
    printf "\t$(NVCC) $(NVCCFLAGS) $^ $(NVCCLIBS) -o $@\n"
    printf "$(BUILD)/gen/%s.cu: chapters/kernels.list common/contenders.awk\n", name
    printf "\t@mkdir -p $(dir $@)\n"
    printf "\tawk -v chapter=%d -v problem=%s -v kind=%s -v program=%s -f common/contenders.awk $< > $@.partial && mv $@.partial $@\n",
           chapter, problem, kind, name
    if (kind == "chapter")
        printf "PROGRAMS_OF_%d += %s\n", chapter, target
    for (m = 1; kind == "chapter" && m <= mutant_total; m++) {
        if (mutant_chapter(mutant_list[m]) != chapter)
            continue
        suffix = mutant_suffix(mutant_list[m])
        printf "MUTANT_PROGRAMS += %s-mutant%s\n", target, suffix
        printf "%s-mutant%s: $(BUILD)/obj/gen/%s.o $(call chapter_objects,%s) $(call mutant_objects,%d,%s) $(LIBRARY)\n",
               target, suffix, name, other_than(chapters, chapter), chapter, substr(suffix, 2)
        printf "\t$(NVCC) $(NVCCFLAGS) $^ $(NVCCLIBS) -o $@\n"
    }
}
# "6:max" -> 6 and "-max"; "6" -> 6 and ""
function mutant_chapter(entry) { return (split(entry, part, ":") > 0 ? part[1] : entry) + 0 }
function mutant_suffix(entry,    part) { return split(entry, part, ":") > 1 ? "-" part[2] : "" }
function other_than(list, chapter,    n, parts, k, out) {
    n = split(list, parts, " ")
    out = ""
    for (k = 1; k <= n; k++)
        if (parts[k] + 0 != chapter + 0)
            out = out " " parts[k]
    return out
}
END {
    if (failed)
        exit 1
    for (chapter = 1; chapter <= last_chapter; chapter++) {
        if (!(chapter in problems_of))
            continue
        n = split(problems_of[chapter], list, " ")
        for (k = 1; k <= n; k++) {
            problem = list[k]
            name = "chapter" chapter (problem_count[chapter] > 1 ? "-" problem : "")
            emit(name, problem, chapter, "chapter", linked(raced_chapters[problem], chapter, chapter))
            if ((chapter SUBSEP problem) in has_tried)
                emit(name "-tried", problem, chapter, "tried",
                     other_than(linked(champion_chapters[problem], chapter, ""), chapter))
        }
    }
}
