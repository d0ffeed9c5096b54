/* `sweep summary DIR [--out OUT]`: a finished run's summary.md written again
 * from its own files, with no device, so that a run written by an older
 * build reads as this build prints it (harness/results/summary_main.c says
 * what it reads). argv[0] is "summary". Returns the exit status. */
#ifndef HARNESS_SUMMARY_MAIN_H
#define HARNESS_SUMMARY_MAIN_H

int summary_main(int argc, char **argv);

#endif
