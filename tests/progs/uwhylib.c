/* uwhylib.c - the shared library of uwhy (tests/progs/uwhy.c): cases 11
 * (passed up through the library) and 12 (translated by the program). */
#define NOINLINE __attribute__((noinline, noclone))

volatile int lib_sink;

NOINLINE int lib_parse(int fail)
{
	lib_sink++;
	if (fail)
		return -22; /* origin 11 */
	return 0;
}

NOINLINE int lib_open_config(int fail)
{
	int r = lib_parse(fail);

	lib_sink += r;
	return r;
}

NOINLINE int lib_validate(int fail)
{
	lib_sink++;
	if (fail)
		return -1; /* origin 12 */
	return 0;
}

NOINLINE int lib_check(int fail)
{
	int r = lib_validate(fail);

	lib_sink += r;
	return r;
}
