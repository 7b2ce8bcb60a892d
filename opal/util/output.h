/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Messages to the user.  Everything Meridian has to say (errors, warnings,
 * notices, verbose output) goes through one sink, by default standard error,
 * so an embedding program or a test can take the messages instead.
 */
#ifndef MERIDIAN_UTIL_OUTPUT_H
#define MERIDIAN_UTIL_OUTPUT_H

#include <meridian/rename.h>

MERIDIAN_C_API_BEGIN

typedef enum meridian_severity {
    MERIDIAN_SEVERITY_ERROR = 1,
    MERIDIAN_SEVERITY_WARNING = 2,
    MERIDIAN_SEVERITY_NOTICE = 3,
    MERIDIAN_SEVERITY_VERBOSE = 4
} meridian_severity_t;

/* Receives one complete message (no trailing newline).  text is valid only
 * during the call. */
typedef void (*meridian_message_sink_fn)(meridian_severity_t severity, const char *text,
                                         void *context);

/* Replace the sink; NULL restores the default (standard error, prefixed by
 * "meridian: error: " and the like).  Returns the previous sink. */
meridian_message_sink_fn meridian_set_message_sink(meridian_message_sink_fn sink, void *context);

/* Report a message through the sink (printf format). */
void meridian_report(meridian_severity_t severity, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* Number of errors reported since start-up: lets a tool exit non-zero after
 * it has shown everything. */
unsigned long meridian_error_count(void);

MERIDIAN_C_API_END

#endif
