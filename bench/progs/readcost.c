/* readcost read|mmap N - what reading a ring buffer costs the reader per
 * event, by each way the kernel offers (bench B7): a child on CPU 0
 * writes N trace_marker events into a fresh instance; the reader, on
 * CPU 1, consumes CPU 0's buffer with read() of trace_pipe_raw (a page or
 * what is committed of one per call), or through the memory-mapped ring
 * buffer (Linux 6.10+), walking each page's records either way as a
 * decoder would. Prints one JSON object; exit 3 where the kernel cannot
 * map the buffer.
 *
 * The mapping's ABI (include/uapi/linux/trace_mmap.h, Linux 6.10; no
 * libtracefs 1.6 API): mmap offset 0 is a meta page, struct
 * trace_buffer_meta below, meta_page_size bytes; the sub-buffers follow at
 * offset meta_page_size, nr_subbufs of subbuf_size bytes.
 * ioctl(TRACE_MMAP_IOCTL_GET_READER) makes the oldest unread sub-buffer
 * the reader's (reader.id) and sets reader.read to the bytes of data it
 * holds; the writer may still be on that sub-buffer, and the next call
 * then gives the same id with reader.read grown (seen on 6.18: 320, 640,
 * 960 bytes after 10, 20, 30 events). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct trace_buffer_meta {
	uint32_t meta_page_size, meta_struct_len, subbuf_size, nr_subbufs;
	struct {
		uint64_t lost_events;
		uint32_t id, read;
	} reader;
	uint64_t flags, entries, overrun, read, reserved1, reserved2;
};
#define TRACE_MMAP_IOCTL_GET_READER _IO('R', 0x20)
#define INST "/sys/kernel/tracing/instances/nopctl-readcost"
#define HDR 16 /* a sub-buffer's header: time stamp, commit (64-bit kernel) */

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

/* the data records of a sub-buffer whose data bytes [from, to) are new */
static long walk(const char *pg, unsigned from, unsigned to)
{
	const char *d = pg + HDR;
	unsigned p = 0;
	long n = 0;

	while (p < to) {
		uint32_t h, l;
		unsigned tl, len;

		memcpy(&h, d + p, 4);
		tl = h & 31;
		if (tl == 0 || tl == 29) { /* length in the next word; 29: padding */
			memcpy(&l, d + p + 4, 4);
			len = 4 + ((l + 3) & ~3u);
		} else {
			len = tl <= 28 ? 4 + tl * 4 : 8; /* 30, 31: time stamps */
		}
		n += tl <= 28 && p >= from;
		p += len;
	}
	return n;
}

static double cpu_s(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return r.ru_utime.tv_sec + r.ru_stime.tv_sec + (r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

int main(int argc, char **argv)
{
	int mapped = argc == 3 && !strcmp(argv[1], "mmap"), fd, f, done = 0;
	long n = argc == 3 ? atol(argv[2]) : 0, got = 0;
	struct trace_buffer_meta *m = NULL;
	unsigned last_id = ~0u, last_read = 0;
	char *data = NULL, page[65536];
	size_t data_len = 0;
	double t0, t;
	pid_t w;

	if (n <= 0 || (!mapped && strcmp(argv[1], "read"))) {
		fprintf(stderr, "usage: readcost read|mmap N\n");
		return 2;
	}
	if (mkdir(INST, 0755) < 0 || (f = open(INST "/buffer_size_kb", O_WRONLY)) < 0) {
		perror(INST);
		return 1;
	}
	dprintf(f, "16384\n"); /* room for every event: the cost, not loss, is measured */
	close(f);
	fd = open(INST "/per_cpu/cpu0/trace_pipe_raw", O_RDONLY | O_NONBLOCK);
	if (mapped) {
		m = mmap(NULL, (size_t)getpagesize(), PROT_READ, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED) {
			printf("{\"mode\":\"mmap\",\"supported\":false}\n");
			close(fd);
			rmdir(INST);
			return 3;
		}
		data_len = (size_t)m->subbuf_size * m->nr_subbufs;
		data = mmap(NULL, data_len, PROT_READ, MAP_SHARED, fd, m->meta_page_size);
		if (data == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
	}
	if ((w = fork()) == 0) {
		int mk = open(INST "/trace_marker", O_WRONLY);
		char b[32];

		pin(0);
		for (long i = 0; i < n; i++)
			if (write(mk, b, (size_t)snprintf(b, sizeof(b), "e%ld\n", i)) < 0)
				_exit(1);
		_exit(0);
	}
	pin(1);
	t0 = cpu_s();
	while (!done || got < n) {
		long before = got;

		if (mapped) {
			const char *pg;

			if (ioctl(fd, TRACE_MMAP_IOCTL_GET_READER) < 0) {
				perror("GET_READER");
				break;
			}
			pg = data + (size_t)m->subbuf_size * m->reader.id;
			got += walk(pg, m->reader.id == last_id ? last_read : 0, m->reader.read);
			last_id = m->reader.id;
			last_read = m->reader.read;
		} else {
			ssize_t r = read(fd, page, sizeof(page));
			uint64_t commit;

			if (r > HDR) {
				memcpy(&commit, page + 8, 8);
				got += walk(page, 0, (unsigned)(commit & ((1u << 27) - 1)));
			}
		}
		if (got == before) {
			if (done)
				break; /* the writer is gone and nothing more came */
			if (waitpid(w, NULL, WNOHANG) == w)
				done = 1;
			else
				usleep(1000);
		}
	}
	t = cpu_s() - t0;
	printf("{\"mode\":\"%s\",\"supported\":true,\"written\":%ld,\"read\":%ld,\"cpu_s\":%.6f,"
	       "\"ns_per_event\":%.1f}\n", argv[1], n, got, t, got ? t * 1e9 / (double)got : 0.0);
	if (mapped) {
		munmap(data, data_len);
		munmap(m, (size_t)getpagesize());
	}
	close(fd);
	rmdir(INST);
	return 0;
}
