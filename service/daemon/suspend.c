/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Suspend and resume, the daemon side (see suspend.h). */

#include "context.h"
#include "log.h"
#include "suspend.h"

void suspend_enter(Context *c)
{
        int r;

        if (c->suspend.active)
                return;
        log_info("Going to sleep: powering the accelerometer off");
        c->suspend.active = true;
        poller_update(&c->poller);
        protection_release(c);
        if (c->has_accelerometer) {
                bool off;
                r = backend_power_off(c->backend, &off);
                if (r < 0 && off)
                        log_warning_errno(r,
                                          "Accelerometer powered off, but stopping EC sampling (0x10 0 1) "
                                          "failed: %m");
                else if (r < 0)
                        log_warning_errno(r, "Failed to power the accelerometer off: %m");
        }
        context_changed(c, CHANGE_MASK(CHANGE_SUSPENDED));
}

void suspend_leave(Context *c)
{
        int r;

        if (!c->suspend.active)
                return;
        log_info("Resumed: re-initializing the accelerometer");
        c->suspend.active = false;
        if (c->has_accelerometer) {
                r = context_init_device(c);
                if (r < 0)
                        log_warning_errno(r, "Re-initializing the accelerometer after resume failed: %m");
                else
                        poller_hardware_reinitialized(&c->poller);
        }
        context_changed(c, CHANGE_MASK(CHANGE_SUSPENDED));
        poller_update(&c->poller);
}
