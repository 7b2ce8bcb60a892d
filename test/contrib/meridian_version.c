/* SPDX-License-Identifier: BSD-3-Clause */
/* Prints meridian_version(): built with pkg-config's flags only, it shows the
 * installed headers and library are enough for a program. */
#include <stdio.h>

#include <meridian/meridian.h> /* the C API in one header */

int main(void)
{
    printf("%s\n", meridian_version());
    return 0;
}
