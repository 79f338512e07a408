/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Small helpers shared by every layer of tpacceld: ownership via
 * __attribute__((cleanup)), array sizes, and the TAKE_PTR idiom. */

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f)         __attribute__((cleanup(f)))
#define _unused_             __attribute__((unused))
#define _printf_(a, b)       __attribute__((format(printf, a, b)))
#define _warn_unused_result_ __attribute__((warn_unused_result))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

/* Hand ownership of *p to the caller and leave NULL behind, so a cleanup attribute does not free it. */
#define TAKE_PTR(p)                                                                                         \
        ({                                                                                                  \
                __typeof__(p) _p_ = (p);                                                                    \
                (p) = NULL;                                                                                 \
                _p_;                                                                                        \
        })

#define TAKE_FD(fd)                                                                                         \
        ({                                                                                                  \
                int _fd_ = (fd);                                                                            \
                (fd) = -1;                                                                                  \
                _fd_;                                                                                       \
        })

/* Frees p and returns NULL, for "x = mfree(x)". */
static inline void *mfree(void *p)
{
        free(p);
        return NULL;
}

static inline void freep(void *p)
{
        free(*(void **) p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline void closep(int *fd)
{
        if (*fd >= 0)
                (void) close(*fd);
}
#define _cleanup_close_ _cleanup_(closep)

#include <stdio.h>
static inline void fclosep(FILE **f)
{
        if (*f)
                (void) fclose(*f);
}
#define _cleanup_fclose_ _cleanup_(fclosep)

/* Define a cleanup function "namep" that calls "func" on a non-NULL pointer. */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)                                                             \
        static inline void func##p(type *p)                                                                 \
        {                                                                                                   \
                if (*p)                                                                                     \
                        func(*p);                                                                           \
        }

#define CLAMP(x, lo, hi) ((x) < (lo) ? (lo) : (x) > (hi) ? (hi) : (x))
#define MIN(a, b)        ((a) < (b) ? (a) : (b))
#define MAX(a, b)        ((a) > (b) ? (a) : (b))

#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC  1000000000ULL
#define USEC_PER_MSEC 1000ULL
#define USEC_PER_SEC  1000000ULL
