/* error.c - errors returned with a reason. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"

void nop_error_set(struct nop_error *err, enum nop_status st, int sys_errno,
		   const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	err->status = st;
	err->sys_errno = sys_errno;
	err->remedy = NOP_REMEDY_NONE;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

const char *nop_write_hint(int e)
{
	return e == EFBIG ? " (the file size limit, ulimit -f, was reached)" : "";
}

void nop_error_io(struct nop_error *err, const char *what, const char *path, int e)
{
	enum nop_status st = NOP_EINTERNAL;
	const char *hint = nop_write_hint(e);

	if (e == EPERM || e == EACCES) {
		st = NOP_EKERNEL;
		hint = (geteuid() == 0) ? " (the kernel refuses it although nopctl runs as root:"
					   " function tracing is disabled or locked down here;"
					   " 'nopctl doctor' tells more)"
					 : " (run nopctl as root)";
	} else if (e == ENODEV || e == ENOENT) {
		st = NOP_EKERNEL;
		hint = " (this kernel does not offer it)";
	}
	nop_error_set(err, st, e, "cannot %s %s: %s%s", what, path, strerror(e), hint);
}
