/* Prints meridian_version(): built with pkg-config's flags only, it shows the
 * installed headers and library are enough for a program. */
#include <stdio.h>

#include "opal/runtime/meridian.h"

int main(void)
{
    printf("%s\n", meridian_version());
    return 0;
}
