/* bench_fn: the function B6 traces (libubench.so, or in ubench-finstr) */
int bench_fn(int x)
{
	return x * 3 + 1;
}
