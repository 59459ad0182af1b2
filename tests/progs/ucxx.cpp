// ucxx N - C++ calls with known counts: an overload set (ns::Parser::parse
// of an int and of a string, N times each) and a template instance.
#include <cstdlib>
#include <cstring>

namespace ns {
struct Parser {
	int parse(int v);
	int parse(const char *s);
};
int Parser::parse(int v)
{
	return v + 1;
}
int Parser::parse(const char *s)
{
	return (int)std::strlen(s);
}
template <typename T> T twice(T v)
{
	return v + v;
}
} // namespace ns

int main(int argc, char **argv)
{
	long n = argc > 1 ? std::atol(argv[1]) : 10, sum = 0;
	ns::Parser p;

	for (long i = 0; i < n; i++)
		sum += p.parse((int)i) + p.parse("abc") + ns::twice<long>(i);
	return sum == -1;
}
