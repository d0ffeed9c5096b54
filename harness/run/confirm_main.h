/* `sweep confirm DIR [options]`: the confirmation phase on a finished run
 * (harness/run/confirm_main.c says what it reads and writes). argv[0] is
 * "confirm". Returns the exit status. */
#ifndef HARNESS_CONFIRM_MAIN_H
#define HARNESS_CONFIRM_MAIN_H

int confirm_main(int argc, char **argv);

#endif
