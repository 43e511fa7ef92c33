/* solutions/host/main_check.cpp - the main of an exercise's host check: the
 * same object as the exercise's program (main_program.cpp says why), run
 * from the check's entry instead of the exercise's. */
int host_check_main(int argc, char **argv);

int main(int argc, char **argv)
{
    return host_check_main(argc, argv);
}
