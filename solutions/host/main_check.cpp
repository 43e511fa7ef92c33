/* solutions/host/main_check.cpp - the main of an exercise's host check: the
 * same object as the exercise's program (main_program.cpp says why), run
 * from the check's entry instead of the exercise's. A first argument
 * --probe or --referee gives the run its role when the grader grades
 * (probed_call.h); without one the check is a plain self-check. */
#include <string.h>

#include "probed_call.h"

int host_check_main(int argc, char **argv);

int main(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--probe") == 0 || strcmp(argv[1], "--referee") == 0)) {
        const int status = probed_begin(strcmp(argv[1], "--probe") == 0 ? PROBED_PROBE
                                                                       : PROBED_REFEREE);
        if (status)
            return status;
        argv[1] = argv[0];
        return host_check_main(argc - 1, argv + 1);
    }
    return host_check_main(argc, argv);
}
