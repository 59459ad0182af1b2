/* sink.c - the sink for a view: each view's operations, set up from one
 * configuration. */
#include <errno.h>
#include <string.h>

#include "sink/sink.h"

int nop_sink_init(struct nop_sink *s, const struct nop_sink_cfg *cfg, struct nop_error *err)
{
	static const struct nop_sink_ops *const ops[] = {
		[NOP_VIEW_LINES] = &nop_lines_ops,   [NOP_VIEW_FOLDED] = &nop_folded_ops,
		[NOP_VIEW_DOT] = &nop_dot_ops,	     [NOP_VIEW_CHROME] = &nop_chrome_ops,
		[NOP_VIEW_STATS] = &nop_stats_ops,   [NOP_VIEW_CALLERS] = &nop_callers_ops,
		[NOP_VIEW_PROFILE] = &nop_profile_ops, [NOP_VIEW_WHY] = &nop_why_ops,
	};

	memset(s, 0, sizeof(*s));
	if ((unsigned)cfg->view >= ARRAY_SIZE(ops)) {
		nop_error_set(err, NOP_EUSAGE, 0, "unknown output view");
		return -1;
	}
	s->ops = ops[cfg->view];
	s->out = cfg->out;
	s->diag = cfg->diag;
	s->res = cfg->res;
	s->enc = cfg->enc;
	s->quiet = cfg->quiet;
	return s->ops->init ? s->ops->init(s, cfg, err) : 0;
}
