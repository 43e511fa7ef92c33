# solutions/ncu_metric.awk - one metric's value out of Nsight Compute's CSV
# output (`ncu --csv --metrics ...`), for solutions/grade.sh.
#
#   awk -v metric=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum \
#       -f solutions/ncu_metric.awk ncu-output.txt
#
# ncu prints one quoted CSV row per kernel launch and metric, after a header
# row that names the columns ("Kernel Name", "Metric Name", "Metric Value",
# ...); the program's own output and ncu's "==PROF==" lines come around
# them. Prints the sum of the metric over the rows that have it (the grader
# profiles one launch), digits only, and exits 0; exits 1, printing nothing,
# when no row has it. A value may carry thousands separators ("1,024"),
# which are dropped.

# Splits one CSV line of quoted fields into field[1..n]; returns n.
function split_csv(line, field,    n, rest, value) {
    n = 0
    rest = line
    while (rest != "") {
        if (substr(rest, 1, 1) == "\"") {
            rest = substr(rest, 2)
            value = ""
            while (1) {
                quote = index(rest, "\"")
                if (quote == 0) { value = value rest; rest = ""; break }
                value = value substr(rest, 1, quote - 1)
                rest = substr(rest, quote + 1)
                if (substr(rest, 1, 1) == "\"") { value = value "\""; rest = substr(rest, 2) }
                else break
            }
            field[++n] = value
            if (substr(rest, 1, 1) == ",") rest = substr(rest, 2)
        } else {
            comma = index(rest, ",")
            if (comma == 0) { field[++n] = rest; rest = "" }
            else { field[++n] = substr(rest, 1, comma - 1); rest = substr(rest, comma + 1) }
        }
    }
    return n
}
/^"/ {
    sub(/\r$/, "")
    n = split_csv($0, field)
    if (!name_column) {
        for (k = 1; k <= n; k++) {
            if (field[k] == "Metric Name") name_column = k
            if (field[k] == "Metric Value") value_column = k
        }
        next
    }
    if (field[name_column] != metric) next
    value = field[value_column]
    gsub(/,/, "", value)
    if (value !~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/) next
    total += value
    found = 1
}
END {
    if (!found) exit 1
    printf "%.0f\n", total
}
