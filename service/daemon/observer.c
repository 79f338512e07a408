/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The core's one observer (see observer.h): the concerns report through it, not through context.c. */

#include "context.h"
#include "observer.h"

void context_set_observer(Context *c, const ContextObserver *o, void *userdata)
{
        c->observer = o;
        c->observer_userdata = userdata;
}

void context_changed(Context *c, ChangeMask mask)
{
        if (mask != 0 && c->observer && c->observer->changed)
                c->observer->changed(c, mask, c->observer_userdata);
}
