/* tasks.c - whose calls a run that traces chosen tasks shows: the tasks
 * the session traces, the children it was seen to fork (the kernel
 * follows them), and not another task's half of a context switch. A task
 * gone from /proc by the time its calls are read is judged by the forks
 * read before them. */
#include "pipeline/pipeline.h"

void nop_tasks_init(struct nop_tasks *t, struct nop_session *s, bool gated)
{
	*t = (struct nop_tasks){ .session = s, .gated = gated };
}

/* The kernel also records the calls another task makes between the
 * sched_switch that hands the CPU to a traced task and the switch itself
 * (switch_mm_irqs_off, finish_task_switch, ...). Not inlined (link-time
 * optimization would): the pipeline's per-call path of every other run
 * stays as small as it was. */
__attribute__((noinline)) bool nop_tasks_traced(struct nop_tasks *t, int pid)
{
	size_t slot = (size_t)pid % ARRAY_SIZE(t->cache);
	int on;

	if (t->cache[slot].traced == 0 || t->cache[slot].pid != pid) {
		/* gone: a traced child if its fork was seen, or if forks may
		 * have gone unread (a pid seen born and now alive may be
		 * another task's: /proc is asked first) */
		if ((on = nop_session_traces(t->session, pid)) < 0)
			on = nop_addrset_has(&t->born, (unsigned long long)pid) || t->unsure || t->gated ? 1 : 0;
		t->cache[slot].pid = pid;
		t->cache[slot].traced = on > 0 ? 1 : -1;
	}
	return t->cache[slot].traced > 0;
}

/* A fork may have gone unread (events lost, out of memory): a gone task
 * judged not traced before may have been a child */
void nop_tasks_unsure(struct nop_tasks *t)
{
	if (t->unsure)
		return;
	t->unsure = true;
	for (size_t i = 0; i < ARRAY_SIZE(t->cache); i++)
		if (t->cache[i].traced < 0)
			t->cache[i].traced = 0;
}

/* A fork: the child of a traced task is traced (the kernel follows it)
 * from its first event on, even once it has gone */
void nop_tasks_born(struct nop_tasks *t, int parent, int child)
{
	size_t slot = (size_t)child % ARRAY_SIZE(t->cache);

	if (!nop_tasks_traced(t, parent))
		return;
	if (child <= 0 || nop_addrset_add(&t->born, (unsigned long long)child))
		nop_tasks_unsure(t);
	if (t->cache[slot].pid == child) /* the pid another task had */
		t->cache[slot].traced = 0;
}

void nop_tasks_free(struct nop_tasks *t)
{
	nop_addrset_free(&t->born);
}
