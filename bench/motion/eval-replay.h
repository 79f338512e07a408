/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Sources of motion samples for the evaluation: the daemon's pipeline on the emulator (virtual time),
 * or the trace rows fed directly. */

#include "motion.h"

typedef struct Replay Replay;

/* The pipeline: emulator (virtual time, this trace) -> EC -> hdaps (deferred calibration) polled every
 * 20 ms, the first poll phase_ms (0 <= phase_ms < 20) later than at phase 0: which samples of the EC
 * every readout averages. -EOPNOTSUPP if this build has no emulator. */
int replay_open_pipeline(const char *trace_path, unsigned phase_ms, Replay **ret, char **ret_error);
/* The same at rate_hz readouts a second (the EC set to that rate, as the poller sets it), the first poll
 * phase_ms (< 1000 / rate_hz) later than at phase 0. */
int replay_open_pipeline_at(const char *trace_path, unsigned rate_hz, unsigned phase_ms, Replay **ret,
                            char **ret_error);
/* The rows sampled every 20 ms with linear interpolation; rest = the first row. */
int replay_open_direct(const char *trace_path, Replay **ret, char **ret_error);
Replay *replay_free(Replay *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(Replay *, replay_free);

/* The next sample: 1, 0 at the end of the trace, or a negative errno (with *ret_error). */
int replay_next(Replay *r, MotionSample *ret, char **ret_error);
/* Trace time in ms at which the data of the last sample were taken by the EC. With the transport's
 * prefetch (hdaps_poll reads the row requested one tick earlier) this is the previous tick, while the
 * sample's time_usec is when it was read. */
double replay_last_data_ms(const Replay *r);
/* Trace time in ms of a sample's time. */
double replay_trace_ms(const Replay *r, uint64_t time_usec);
