/* One-line messages written into a caller's buffer (the msg/msglen pair of the
 * cupti library's C interface). Both are safe with msg == NULL or msglen == 0,
 * and truncate to fit. */
#ifndef CUPTI_MSG_H
#define CUPTI_MSG_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Replace msg with the formatted text. */
void cupti_msg_set(char *msg, size_t msglen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Add the formatted text at msg's current end. */
void cupti_msg_append(char *msg, size_t msglen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif

#endif
