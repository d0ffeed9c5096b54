/* Which parts of a test binary with a CPU and a GPU part run. The test
 * targets pass `--part=cpu` or `--part=gpu` (tests/defs.bzl: the GPU part is
 * its own target, skipped by Bazel where there is no GPU); without an argument,
 * as the bundle runs it, both run. */
#ifndef TESTS_TEST_PARTS_H
#define TESTS_TEST_PARTS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TEST_PART_CPU = 1, TEST_PART_GPU = 2 };

static inline int test_parts(int argc, char **argv)
{
    if (argc < 2) return TEST_PART_CPU | TEST_PART_GPU;
    if (argc == 2 && !strcmp(argv[1], "--part=cpu")) return TEST_PART_CPU;
    if (argc == 2 && !strcmp(argv[1], "--part=gpu")) return TEST_PART_GPU;
    fprintf(stderr, "%s: bad argument '%s' (want --part=cpu, --part=gpu or none)\n", argv[0], argv[1]);
    exit(2);
}

#endif
