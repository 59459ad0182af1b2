/* fuzz_file.h - for targets whose input is a file: the input written to
 * a path of this process's own, which the code under test opens. */
#ifndef FUZZ_FILE_H
#define FUZZ_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char fuzz_path[64];

static void fuzz_file_init(const char *name)
{
	snprintf(fuzz_path, sizeof(fuzz_path), "/tmp/%s.%d", name, (int)getpid());
}

static const char *fuzz_file(const unsigned char *data, size_t size)
{
	FILE *fp = fopen(fuzz_path, "w");

	if (!fp)
		abort();
	fwrite(data, 1, size, fp);
	fclose(fp);
	return fuzz_path;
}

#endif
