/* unit.h - what unit tests share: a file laid out as tracefs has it. */
#ifndef NOPCTL_UNIT_H
#define NOPCTL_UNIT_H

#include <stdio.h>
#include <stdlib.h>

/* dir/name holding text (the test fails if it cannot be made) */
static inline void put_text(const char *dir, const char *name, const char *text)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

/* a scratch directory made from tmpl ("/tmp/NAME-XXXXXX", filled in),
 * and removed with everything in it */
static inline void scratch_make(char *tmpl)
{
	assert_non_null(mkdtemp(tmpl));
}

static inline int scratch_remove(const char *dir)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

#endif
