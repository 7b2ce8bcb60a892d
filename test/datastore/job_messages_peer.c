/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A process of job_messages.sh: starts Meridian with its command line
 * (--mca ...), then says what its options ask, and finalizes.
 *   --warn-all TEXT        every rank warns TEXT
 *   --warn-rank R TEXT     rank R (its PMIX_RANK) warns TEXT
 *   --error-all TEXT       every rank reports the error TEXT
 *   --exit-without-finalize
 * Exits 0, or 2 when meridian_init fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meridian/mca/runtime/meridian.h>
#include <meridian/opal/util/error.h>
#include <meridian/opal/util/output.h>

int main(int argc, char **argv)
{
    if (meridian_init(&argc, &argv) != MERIDIAN_SUCCESS) {
        return 2;
    }
    const char *rank = getenv("PMIX_RANK");
    int finalize = 1;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--warn-all") == 0 && i + 1 < argc) {
            meridian_report(MERIDIAN_SEVERITY_WARNING, "%s", argv[++i]);
        } else if (strcmp(argv[i], "--error-all") == 0 && i + 1 < argc) {
            meridian_report(MERIDIAN_SEVERITY_ERROR, "%s", argv[++i]);
        } else if (strcmp(argv[i], "--warn-rank") == 0 && i + 2 < argc) {
            if (rank != NULL && strcmp(rank, argv[i + 1]) == 0) {
                meridian_report(MERIDIAN_SEVERITY_WARNING, "%s", argv[i + 2]);
            }
            i += 2;
        } else if (strcmp(argv[i], "--exit-without-finalize") == 0) {
            finalize = 0;
        } else {
            fprintf(stderr, "job_messages_peer: unknown option %s\n", argv[i]);
            return 1;
        }
    }
    if (finalize) {
        meridian_finalize();
    }
    return 0;
}
