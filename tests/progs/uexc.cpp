// uexc N - C++ where return probes break programs (issue 39), counting
// its own calls and printing "calls NAME COUNT" lines at exit:
// N times main -> tryit -> thrower, which throws every other time through
// middle, caught in tryit; N shapes made and deleted through a virtual
// destructor (the deleting, complete and base variants, D0/D1/D2), each
// size from a lambda called through a pointer.
// Built -O0 and -O2 (tests/tests.mk).
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#define NOINLINE __attribute__((noinline))

static long n_thrower, n_middle, n_tryit, n_dtor, n_ctor;

NOINLINE int thrower(int i)
{
	n_thrower++;
	if (i % 2)
		throw std::runtime_error("odd");
	return i;
}

NOINLINE int middle(int i)
{
	n_middle++;
	return thrower(i) + 1;
}

NOINLINE int tryit(int i)
{
	n_tryit++;
	try {
		return middle(i);
	} catch (const std::runtime_error &) {
		return -1;
	}
}

struct Shape {
	virtual ~Shape() {}
	virtual int area() const = 0;
};
struct Square : Shape {
	int s;
	NOINLINE Square(int v) : s(v) { n_ctor++; }
	NOINLINE ~Square() override { n_dtor++; }
	int area() const override { return s * s; }
};

// a lambda called through a function pointer: its _FUN and operator(),
// which GCC's debug info gives no declaration line
static int (*volatile lamp)(int);

NOINLINE Shape *make(int i)
{
	return new Square(i);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? std::atoi(argv[1]) : 10, sum = 0;

	for (int i = 0; i < n; i++)
		sum += tryit(i);
	lamp = [](int x) { return x + 1; };
	for (int i = 0; i < n; i++) {
		Shape *s = make(lamp(i));
		sum += s->area();
		delete s;
	}
	std::printf("calls thrower %ld\ncalls middle %ld\ncalls tryit %ld\n"
		    "calls Square::Square %ld\ncalls Square::~Square %ld\nsum %d\n",
		    n_thrower, n_middle, n_tryit, n_ctor, n_dtor, sum);
	return 0;
}
