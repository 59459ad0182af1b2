/* unit.h - what unit tests share: a file laid out as tracefs has it. */
#ifndef NOPCTL_UNIT_H
#define NOPCTL_UNIT_H

#include <stdio.h>

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

#endif
