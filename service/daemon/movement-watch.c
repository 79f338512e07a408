/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Movement watching (see movement-watch.h). */

#include "context.h"
#include "log.h"
#include "movement-watch.h"

bool movement_watched(const Context *c)
{
        return c->poller.demand & DEMAND_MOVEMENT;
}

void movement_watch_set(Context *c, bool on)
{
        ChangeMask mask = CHANGE_MASK(CHANGE_MOVEMENT_WATCHED);

        if (movement_watched(c) == on)
                return;
        log_debug("Movement detection %s", on ? "starts" : "stops: nobody watches");
        poller_set_demand(&c->poller, DEMAND_MOVEMENT, on);
        if (!on && c->motion && motion_stop_movement(c->motion))
                mask |= CHANGE_MASK(CHANGE_MOVING);
        context_changed(c, mask);
}
