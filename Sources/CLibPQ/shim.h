// libpq, PostgreSQL's client library, for CourierPostgres: the header it calls.
#ifndef COURIER_LIBPQ_SHIM_H
#define COURIER_LIBPQ_SHIM_H

#include <libpq-fe.h>

#endif
