// uwhyxx.cpp - the C++ cases of uwhy (tests/progs/uwhy.c): 13, a method
// that fails, passed up; 14, a template's member returning nullptr,
// translated to -14.
#define NOINLINE __attribute__((noinline, noclone))

extern "C" volatile int sink;

namespace ns {
struct Parser {
	int parse(int v);
};
NOINLINE int Parser::parse(int v)
{
	sink++;
	if (v)
		return -1; // origin 13
	return 0;
}
template <typename T> struct Store {
	T slots[4];
	T *get(int i);
};
template <typename T> NOINLINE T *Store<T>::get(int i)
{
	sink++;
	if (i >= 4)
		return nullptr; // origin 14
	return &slots[i];
}
template struct Store<int>;
} // namespace ns

extern "C" NOINLINE int case_13(int fail)
{
	ns::Parser p;
	int r = p.parse(fail);

	sink += r;
	return r;
}

extern "C" NOINLINE int case_14(int fail)
{
	static ns::Store<int> s;
	int *p = s.get(fail ? 7 : 1);

	sink++;
	return p ? 0 : -14;
}
