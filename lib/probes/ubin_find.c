/* ubin_find.c - the file a BINARY of BINARY:GLOB names: a path as it is,
 * or a library name ("libc", "libstdc++", "libssl") as the traced program
 * loads it: from /proc/PID/maps with -p, else as the dynamic loader would
 * find it for COMMAND (its RUNPATH, the ld.so cache, the default
 * directories).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probes/probes.h"

/* "libc" names libc.so.6, "libstdc++" libstdc++.so.6, "libssl.so.3" itself:
 * the file name is the library name followed by ".so" (or is it) */
static bool lib_named(const char *file, const char *lib)
{
	const char *base = strrchr(file, '/');
	size_t n = strlen(lib);

	base = base ? base + 1 : file;
	if (!strcmp(base, lib))
		return true;
	return !strncmp(base, lib, n) && !strncmp(base + n, ".so", 3) &&
	       (base[n + 3] == 0 || base[n + 3] == '.');
}

static int from_maps(const char *lib, pid_t pid, char *out, size_t len)
{
	char path[64], *text, *save;
	struct nop_error e2;
	int found = -1;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (!(text = nop_read_file(path, NULL, &e2)))
		return -1;
	for (char *l = strtok_r(text, "\n", &save); l && found; l = strtok_r(NULL, "\n", &save)) {
		char *file = strchr(l, '/');

		if (file && lib_named(file, lib) && strlen(file) < len) {
			snprintf(out, len, "%s", file);
			found = 0;
		}
	}
	free(text);
	return found;
}

static bool regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* the ld.so cache, its new format (glibc 2.32 on writes only that):
 * "glibc-ld.so.cache1.1", counts, then entries of {flags, key, value,
 * osversion, hwcap}; key and value are offsets of the soname and path */
#define CACHE_MAGIC "glibc-ld.so.cache1.1"
struct cache_entry {
	int32_t flags;
	uint32_t key, value, osversion;
	uint64_t hwcap;
};
/* lib in the ld.so cache's text c (size bytes) */
static int cache_lookup(const char *c, size_t size, const char *lib, char *out, size_t len)
{
	uint32_t nlibs;

	if (!c || size < 48 || memcmp(c, CACHE_MAGIC, sizeof(CACHE_MAGIC) - 1))
		return -1;
	memcpy(&nlibs, c + 20, sizeof(nlibs));
	for (uint32_t i = 0; i < nlibs && 48 + (i + 1) * sizeof(struct cache_entry) <= size; i++) {
		struct cache_entry e;

		memcpy(&e, c + 48 + i * sizeof(e), sizeof(e));
		if (e.flags != nop_arch.ldcache_flags || e.key >= size || e.value >= size ||
		    !memchr(c + e.key, 0, size - e.key) || !memchr(c + e.value, 0, size - e.value))
			continue;
		if (lib_named(c + e.key, lib) && strlen(c + e.value) < len && regular(c + e.value)) {
			snprintf(out, len, "%s", c + e.value);
			return 0;
		}
	}
	return -1;
}

static char *cache_read(size_t *size)
{
	struct nop_error e2;

	return nop_read_file("/etc/ld.so.cache", size, &e2);
}

static int from_cache(const char *lib, char *out, size_t len)
{
	size_t size = 0;
	char *c = cache_read(&size);
	int ret = cache_lookup(c, size, lib, out, len);

	free(c);
	return ret;
}

/* an ELF file: not a linker script, which a -dev package's LIB.so can be
 * (Debian's libc.so, libm.so) */
static bool elf_file(const char *path)
{
	char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool yes = fd >= 0 && read(fd, magic, 4) == 4 && !memcmp(magic, "\177ELF", 4);

	if (fd >= 0)
		close(fd);
	return yes;
}

/* a file in dir whose name is the library's */
static int in_dir(const char *dir, const char *lib, char *out, size_t len)
{
	static const char *const sfx[] = { "", ".so", ".so.6", ".so.3", ".so.1", ".so.0", ".so.2",
					   ".so.4", ".so.5" };

	for (size_t i = 0; i < ARRAY_SIZE(sfx); i++) {
		snprintf(out, len, "%s/%s%s", dir, lib, sfx[i]);
		if (regular(out) && lib_named(out, lib) && elf_file(out))
			return 0;
	}
	return -1;
}

/* COMMAND's DT_RUNPATH / DT_RPATH directories (":"-separated; $ORIGIN
 * is the command's directory) */
static int from_runpath(const char *lib, const char *command, char *out, size_t len)
{
	int fd = open(command, O_RDONLY | O_CLOEXEC), ret = -1;
	Elf *e;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	for (Elf_Scn *scn = NULL; e && ret && (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; ret && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			const char *rp;
			char dirs[PATH_MAX], origin[PATH_MAX], *save;

			if (!gelf_getdyn(d, (int)i, &dyn) ||
			    (dyn.d_tag != DT_RUNPATH && dyn.d_tag != DT_RPATH) ||
			    !(rp = elf_strptr(e, sh.sh_link, dyn.d_un.d_val)))
				continue;
			snprintf(dirs, sizeof(dirs), "%s", rp);
			snprintf(origin, sizeof(origin), "%s", command);
			*(strrchr(origin, '/') ? strrchr(origin, '/') : origin) = 0;
			for (char *dir = strtok_r(dirs, ":", &save); dir && ret; dir = strtok_r(NULL, ":", &save)) {
				char full[PATH_MAX];

				if (!strncmp(dir, "$ORIGIN", 7))
					snprintf(full, sizeof(full), "%s%s", origin[0] ? origin : ".", dir + 7);
				else
					snprintf(full, sizeof(full), "%s", dir);
				ret = in_dir(full, lib, out, len);
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

static bool statically_linked(const char *command)
{
	int fd = open(command, O_RDONLY | O_CLOEXEC);
	bool st = false;
	Elf *e;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	if ((e = elf_begin(fd, ELF_C_READ_MMAP, NULL))) {
		size_t nph;

		st = elf_kind(e) == ELF_K_ELF && !elf_getphdrnum(e, &nph);
		for (size_t i = 0; st && i < nph; i++) {
			GElf_Phdr ph;

			st = !gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_INTERP;
		}
		elf_end(e);
	}
	close(fd);
	return st;
}

/* the libraries path names in DT_NEEDED, each resolved as the loader
 * would for command (its RUNPATH, the ld.so cache), into found */
static void needed(const char *path, const char *command, const char *cache, size_t csize,
		   struct nop_strmap *found)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e;

	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	for (Elf_Scn *scn = NULL; e && (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			const char *name;
			char buf[PATH_MAX], real[PATH_MAX];

			if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag != DT_NEEDED ||
			    !(name = elf_strptr(e, sh.sh_link, dyn.d_un.d_val)))
				continue;
			if ((from_runpath(name, command, buf, sizeof(buf)) == 0 ||
			     cache_lookup(cache, csize, name, buf, sizeof(buf)) == 0) && realpath(buf, real))
				nop_strmap_get(found, real);
		}
	}
	if (e)
		elf_end(e);
	close(fd);
}

bool nop_ubin_loaded_by(const char *command, const char *lib)
{
	struct nop_strmap *found = nop_strmap_new(1);
	size_t csize = 0;
	char *cache;
	bool yes;

	if (!found)
		return true; /* not known: not said otherwise */
	cache = cache_read(&csize); /* once for every library's names */
	needed(command, command, cache, csize, found);
	/* the libraries' own, breadth first (the map keeps its order) */
	for (size_t i = 0; i < nop_strmap_size(found) && i < 512; i++) {
		const char *path;

		nop_strmap_at(found, i, &path);
		needed(path, command, cache, csize, found);
	}
	yes = nop_strmap_find(found, lib) != NULL;
	free(cache);
	nop_strmap_free(found);
	return yes;
}

int nop_ubin_find(const char *bin, pid_t pid, const char *command, char *out, size_t len,
		  struct nop_error *err)
{
	char multi[2][64], buf[PATH_MAX];
	const char *const dirs[] = { multi[0], multi[1], "/lib64", "/usr/lib64", "/lib", "/usr/lib",
				     "/usr/local/lib" };

	snprintf(multi[0], sizeof(multi[0]), "/lib/%s", nop_arch.triplet);
	snprintf(multi[1], sizeof(multi[1]), "/usr/lib/%s", nop_arch.triplet);
	if (strchr(bin, '/')) {
		if (!realpath(bin, buf)) {
			nop_error_set(err, NOP_EUSAGE, errno, "binary %s: %s", bin, strerror(errno));
			return -1;
		}
		if (!regular(buf)) {
			nop_error_set(err, NOP_EUSAGE, EINVAL, "binary %s is not a regular file", bin);
			return -1;
		}
		snprintf(out, len, "%s", buf);
		return 0;
	}
	if (pid > 0) {
		if (from_maps(bin, pid, buf, sizeof(buf)) == 0)
			goto found;
		nop_error_set(err, NOP_EUSAGE, 0, "process %d has no library '%s' mapped (see"
			      " /proc/%d/maps); give its path instead, e.g. %s/%s.so",
			      (int)pid, bin, (int)pid, multi[1], bin);
		return -1;
	}
	if (command && statically_linked(command)) {
		nop_error_set(err, NOP_EUSAGE, 0, "%s is statically linked: it loads no library '%s'."
			      " Its own copy of the functions is in the program: use %s:GLOB", command,
			      bin, command);
		return -1;
	}
	if ((command && from_runpath(bin, command, buf, sizeof(buf)) == 0) ||
	    from_cache(bin, buf, sizeof(buf)) == 0)
		goto found;
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		if (in_dir(dirs[i], bin, buf, sizeof(buf)) == 0)
			goto found;
	nop_error_set(err, NOP_EUSAGE, ENOENT, "no library '%s' found (ld.so cache, %s...); give its"
		      " path, e.g. %s/%s.so.N (a ':' makes a pattern user-space:"
		      " BINARY:GLOB)", bin, dirs[0], multi[1], bin);
	err->remedy = NOP_REMEDY_MODULE;
	return -1;
found:
	{
		char real[PATH_MAX];

		if (!realpath(buf, real) || strlen(real) >= len) {
			nop_error_set(err, NOP_EUSAGE, errno, "library %s: %s", buf, strerror(errno));
			return -1;
		}
		snprintf(out, len, "%s", real);
	}
	return 0;
}
