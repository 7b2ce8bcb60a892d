/* SPDX-License-Identifier: BSD-3-Clause */
/* Starts the Meridian the outer configure chose and says which it is. */
#include <stdio.h>

#include <meridian/meridian.h>

int main(int argc, char **argv)
{
    const int rc = meridian_init(&argc, &argv);
    if (rc != MERIDIAN_SUCCESS) {
        printf("prog: meridian_init: %s\n", meridian_strerror(rc));
        return 1;
    }
    printf("prog: Meridian %s, environment prefix %s\n", meridian_version(),
           meridian_mca_base_env_prefix());
    meridian_finalize();
    return 0;
}
