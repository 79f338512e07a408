/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The org.thinkpad.EmbeddedController object (raw EC access, polkit org.thinkpad.ec.raw) and its fair
 * request queue (f->ec_queue), served one request per loop iteration. */

typedef struct BusFace BusFace;
typedef struct EcQueue EcQueue;

/* Sets up f->ec_queue and exports the object on f->bus with f as its userdata. Returns 0 or a negative
 * errno (logged). */
int bus_ec_register(BusFace *f);
/* Answers nothing more: drops the queued requests. Returns NULL. */
EcQueue *ec_queue_free(EcQueue *q);
