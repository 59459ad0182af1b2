/* libnopdemo.so: a shared library function ufuncs calls */
int lib_add(int a, int b)
{
	return a + b;
}
