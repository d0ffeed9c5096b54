/* See msg.h. */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include "cupti/msg.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void cupti_msg_set(char *msg, size_t msglen, const char *fmt, ...)
{
    if (!msg || msglen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msglen, fmt, ap);
    va_end(ap);
}

void cupti_msg_append(char *msg, size_t msglen, const char *fmt, ...)
{
    if (!msg || msglen == 0)
        return;
    size_t used = strnlen(msg, msglen);
    if (used >= msglen - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + used, msglen - used, fmt, ap);
    va_end(ap);
}
