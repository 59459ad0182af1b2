/* origin.c - where a failed call's error began (nopctl why): the
 * innermost call that returned a failure while none of its callees did,
 * and the calls that passed it up, judged on one task's finished tree. */
#include <stdlib.h>

#include "graph/graph.h"

static const struct nop_gitem *at(const void *v, size_t stride, size_t i)
{
	return (const struct nop_gitem *)(const void *)((const char *)v + i * stride);
}

int nop_origin_find(const void *v, size_t n, size_t stride, nop_failed_fn failed, void *ctx,
		    struct nop_origin_link *chain, size_t *nchain)
{
	size_t *end, *open, depth = 0, cur;
	int found = 0;

	*nchain = 0;
	if (!n || (at(v, stride, 0)->kind != NOP_GI_ENTER && at(v, stride, 0)->kind != NOP_GI_LEAF))
		return 0;
	if (!(end = malloc(n * sizeof(*end))) || !(open = malloc(n * sizeof(*open)))) {
		free(end);
		return -1;
	}
	/* each call's end: a LEAF its own, an ENTER its RETURN (n: none) */
	for (size_t i = 0; i < n; i++) {
		const struct nop_gitem *g = at(v, stride, i);

		end[i] = g->kind == NOP_GI_LEAF ? i : n;
		if (g->kind == NOP_GI_ENTER)
			open[depth++] = i;
		else if (g->kind == NOP_GI_RETURN && depth)
			end[open[--depth]] = i;
	}
	cur = 0;
	if (end[0] == n || !failed(ctx, at(v, stride, end[0])))
		goto out;
	for (;;) {
		const struct nop_gitem *mine = at(v, stride, end[cur]);
		size_t same = n, other = n;

		chain[(*nchain)++] = (struct nop_origin_link){ cur, end[cur] };
		/* its direct callees: each call's items lie between its start
		 * and its end, the next callee after them */
		for (size_t i = cur + 1; i < end[cur]; i = end[i] < n ? end[i] + 1 : i + 1) {
			const struct nop_gitem *g = at(v, stride, i);

			if ((g->kind != NOP_GI_ENTER && g->kind != NOP_GI_LEAF) || end[i] == n ||
			    !failed(ctx, at(v, stride, end[i])))
				continue;
			other = i;
			if (at(v, stride, end[i])->retval == mine->retval)
				same = i;
		}
		/* passed up unchanged, else translated on the way */
		if (same == n && other == n)
			break;
		cur = same < n ? same : other;
	}
	found = 1;
out:
	free(end);
	free(open);
	return found;
}
