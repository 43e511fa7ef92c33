/* solutions/host/main_program.cpp - the main of an exercise's program where
 * the exercise has a host check (solutions/grade.mk).
 *
 * Such an exercise is compiled once: solutions/host/EXERCISE.cu includes
 * the exercise's file with its main renamed exercise_main, and the one
 * object serves two programs, the exercise's (this main) and its host
 * check (main_check.cpp). A second compile of the same file, for the check
 * alone, would double the grader's work for no other gain. */
int exercise_main(int argc, char **argv);

int main(int argc, char **argv)
{
    return exercise_main(argc, argv);
}
