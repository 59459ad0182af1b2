/* source.c - the calls every source answers (see internal.h and
 * lib/README), and which source reads a file. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

void *nop_source_new(size_t size, const struct nop_source_ops *ops, struct nop_error *err)
{
	struct nop_source *s = nop_zalloc(size, err);

	if (s)
		s->ops = ops;
	return s;
}

int nop_source_nfds(const struct nop_source *src)
{
	return src->ops->nfds ? src->ops->nfds(src) : 0;
}

int nop_source_fd(const struct nop_source *src, int i)
{
	return src->ops->fd(src, i);
}

int nop_source_wait_ms(const struct nop_source *src, int most)
{
	return src->ops->wait_ms ? src->ops->wait_ms(src, most) : most;
}

void nop_source_end(struct nop_source *src)
{
	if (src->ops->end)
		src->ops->end(src);
}

void nop_source_close(struct nop_source *src)
{
	if (src)
		src->ops->close(src);
}

/* a trace.dat, read by nopctl's own reader */
int nop_source_file(struct nop_source **src, const char *path, struct nop_resolver **res,
		    struct nop_error *err)
{
	*src = NULL;
	*res = NULL;
	if (access(path, R_OK) < 0) {
		nop_error_set(err, NOP_EUSAGE, errno, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	return nop_source_dat(src, path, res, err);
}
