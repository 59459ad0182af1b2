/* source.c - the calls every source answers (see internal.h and
 * lib/README), and which source reads a file. */
#include <stdlib.h>
#include <string.h>

#include "events/events.h"

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

void nop_source_catch_up(struct nop_source *src)
{
	if (src->ops->catch_up)
		src->ops->catch_up(src);
}

void nop_source_close(struct nop_source *src)
{
	if (src)
		src->ops->close(src);
}
