/* usyms.c - a program's or library's functions, from its ELF symbol
 * tables (elfutils libelf): name, demangled name, address and the file
 * offset a uprobe is placed at.
 *
 * The offset of a symbol is sym_vaddr - p_vaddr + p_offset of the PT_LOAD
 * segment that holds it: PIE and non-PIE executables, shared libraries and
 * static binaries alike, and segments whose offset is not their address.
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/symbols.h"

/* a GCC .cold fragment: NAME.cold or NAME.cold.N */
bool nop_usym_fragment(const struct nop_usym *s)
{
	const char *c = strstr(s->name, ".cold");

	return c && (!c[5] || c[5] == '.');
}

/* libstdc++'s demangler (the one c++filt's libiberty twin also is): a
 * maintained demangler, not one written here */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* A constructor's or destructor's variant (Itanium C++ ABI 5.1.4: C1
 * complete, C2 base, C3 allocating; D0 deleting, D1 complete, D2 base),
 * which the demangler writes the same: each its own function, one the
 * caller of another (a deleting destructor calls the complete one). The
 * complete one, the name the source says, goes unmarked; an alias keeps
 * the first name, C1 before C2 and D1 before D2. */
static const char *variant(const char *name)
{
	const char *tag = NULL;

	for (const char *c = name + 2; c[0] && c[1] && c[2]; c++)
		if ((c[0] == 'C' || c[0] == 'D') && c[1] >= '0' && c[1] <= '5' && (c[2] == 'E' || c[2] == 'B') &&
		    c[-1] >= '0' && c[-1] <= 'z' && c[-1] != 'S' && c[-1] != 'N')
			switch (c[0] == 'C' ? c[1] - '0' : 10 + c[1] - '0') {
			case 1:
			case 11:
				tag = NULL;
				break;
			case 2:
			case 12:
				tag = " [base]";
				break;
			case 3:
				tag = " [allocating]";
				break;
			case 10:
				tag = " [deleting]";
				break;
			}
	return tag;
}

char *nop_demangle(const char *name)
{
	const char *tag;
	char *d, *t;
	int st;

	if (strncmp(name, "_Z", 2))
		return NULL;
	d = __cxa_demangle(name, NULL, NULL, &st);
	if (st != 0) {
		free(d);
		return NULL;
	}
	if ((tag = variant(name)) && (t = realloc(d, strlen(d) + strlen(tag) + 1))) {
		d = t;
		strcat(d, tag);
	}
	return d;
}

static int cmp_vaddr(const void *a, const void *b)
{
	const struct nop_usym *x = a, *y = b;

	if (x->vaddr != y->vaddr)
		return x->vaddr < y->vaddr ? -1 : 1;
	/* aliases: a global name before a local one, then by name */
	if (x->global != y->global)
		return x->global ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* the file offset of vaddr: in the PT_LOAD segment that holds it */
static bool file_offset(Elf *e, size_t nph, unsigned long long vaddr, unsigned long long *off)
{
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_memsz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return vaddr - ph.p_vaddr < ph.p_filesz;
		}
	}
	return false;
}

static int add_sym(struct nop_ubin *b, size_t *cap, const char *name, const GElf_Sym *s,
		   unsigned long long off)
{
	struct nop_usym *u;

	if (nop_grow((void **)&b->v, cap, b->n + 1, sizeof(*b->v)))
		return -1;
	u = &b->v[b->n];
	*u = (struct nop_usym){ .vaddr = s->st_value, .size = s->st_size, .offset = off,
				.global = GELF_ST_BIND(s->st_info) != STB_LOCAL };
	if (!(u->name = strdup(name)))
		return -1;
	u->demangled = nop_demangle(name);
	b->n++;
	return 0;
}

/* the functions of one symbol table: defined, sized, in a loaded segment */
static int read_table(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, size_t nph, struct nop_ubin *b,
		      size_t *cap)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; data && i < n; i++) {
		GElf_Sym s;
		const char *name;
		unsigned long long off;

		if (!gelf_getsym(data, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
		    s.st_shndx == SHN_UNDEF || s.st_size == 0 || !s.st_value)
			continue;
		name = elf_strptr(e, sh->sh_link, s.st_name);
		if (!name || !*name || !file_offset(e, nph, s.st_value, &off))
			continue;
		if (add_sym(b, cap, name, &s, off))
			return -1;
	}
	return 0;
}

/* A stripped binary's symbols from its debug file, found where
 * distributions put it, by elfutils' own search (dwfl_standard_find_debuginfo):
 * its .gnu_debuglink beside the binary, in .debug/ or under
 * /usr/lib/debug, or /usr/lib/debug/.build-id/NN/REST.debug (Debian's
 * -dbgsym packages), and debuginfod when DEBUGINFOD_URLS is set. A debug
 * file keeps the binary's addresses; offsets come from the binary's own
 * segments. */
static int read_debug_file(struct nop_ubin *b, Elf *e, size_t nph, size_t *cap)
{
	static char *path; /* the default search path */
	static const Dwfl_Callbacks cb = { .find_elf = dwfl_build_id_find_elf,
					   .find_debuginfo = dwfl_standard_find_debuginfo,
					   .debuginfo_path = &path };
	Dwfl *dwfl = dwfl_begin(&cb);
	Dwfl_Module *m;
	int n, ret = 0;

	if (!dwfl)
		return 0;
	m = dwfl_report_offline(dwfl, b->name, b->path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	n = m ? dwfl_module_getsymtab(m) : -1;
	for (int i = 1; i < n && !ret; i++) {
		GElf_Sym s;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *se;
		Dwarf_Addr bias;
		const char *name = dwfl_module_getsym_info(m, i, &s, &addr, &shndx, &se, &bias);
		unsigned long long off;

		if (!name || !*name || GELF_ST_TYPE(s.st_info) != STT_FUNC || shndx == SHN_UNDEF ||
		    !s.st_size || !s.st_value || !file_offset(e, nph, s.st_value, &off))
			continue;
		if (se != e && !b->debug_file[0]) {
			const char *df = NULL;

			dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL, &df);
			snprintf(b->debug_file, sizeof(b->debug_file), "%s", df ? df : "?");
		}
		ret = se != e ? add_sym(b, cap, name, &s, off) : 0;
	}
	dwfl_end(dwfl);
	return ret;
}

/* A Go binary's runtime walks its own stacks: a return address a uretprobe
 * replaced breaks it (the known case for return probes) */
static bool is_go(Elf *e, size_t shstrndx)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		const char *n;

		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(e, shstrndx, sh.sh_name)) &&
		    (!strcmp(n, ".gopclntab") || !strcmp(n, ".go.buildinfo") ||
		     !strcmp(n, ".note.go.buildid")))
			return true;
	}
	return false;
}

static int elf_fail(struct nop_error *err, const char *path, const char *what)
{
	nop_error_set(err, NOP_EUSAGE, 0, "%s %s", path, what);
	return -1;
}

static int load(struct nop_ubin *b, Elf *e, struct nop_error *err)
{
	GElf_Ehdr eh;
	size_t nph, shstrndx, cap = 0;

	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh))
		return elf_fail(err, b->path, "is not an ELF file: give a program or a shared library");
	if (eh.e_machine != nop_arch.elf_machine || gelf_getclass(e) != ELFCLASS64)
		return elf_fail(err, b->path, nop_arch.not_this_machine);
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return elf_fail(err, b->path, "is not a program or shared library (an object file or"
				" core dump has no functions that run)");
	if (elf_getphdrnum(e, &nph) || elf_getshdrstrndx(e, &shstrndx))
		return elf_fail(err, b->path, "has damaged ELF headers");
	b->pie = eh.e_type == ET_DYN;
	b->entry = eh.e_entry;
	b->go = is_go(e, shstrndx);
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		b->has_symtab |= sh.sh_type == SHT_SYMTAB;
		b->has_dynsym |= sh.sh_type == SHT_DYNSYM;
		if (read_table(e, scn, &sh, nph, b, &cap)) {
			nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
			return -1;
		}
	}
	if (!b->has_symtab && read_debug_file(b, e, nph, &cap)) {
		nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
		return -1;
	}
	b->has_symtab |= b->debug_file[0] != 0;
	if (b->n)
		qsort(b->v, b->n, sizeof(*b->v), cmp_vaddr);
	/* .symtab and .dynsym name most functions twice: once each */
	size_t w = 0;
	for (size_t i = 0; i < b->n; i++) {
		if (w && b->v[w - 1].vaddr == b->v[i].vaddr && !strcmp(b->v[w - 1].name, b->v[i].name)) {
			free(b->v[i].name);
			free(b->v[i].demangled);
			continue;
		}
		b->v[i].alias = w && b->v[w - 1].vaddr == b->v[i].vaddr;
		b->v[w++] = b->v[i];
	}
	b->n = w;
	for (size_t i = 0; i < b->n; i++)
		if (nop_usym_fragment(&b->v[i])) {
			size_t *f = realloc(b->frag, (b->nfrag + 1) * sizeof(*f));

			if (!f) {
				nop_error_set(err, NOP_EINTERNAL, ENOMEM, "out of memory");
				return -1;
			}
			b->frag = f;
			b->frag[b->nfrag++] = i;
		}
	return 0;
}

int nop_ubin_load(const char *path, struct nop_ubin *b, struct nop_error *err)
{
	const char *base = strrchr(path, '/');
	int fd, ret;
	Elf *e;

	memset(b, 0, sizeof(*b));
	snprintf(b->path, sizeof(b->path), "%s", path);
	snprintf(b->name, sizeof(b->name), "%s", base ? base + 1 : path);
	elf_version(EV_CURRENT);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		nop_error_set(err, NOP_EUSAGE, errno, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	/* read, not mapped: the kernel writes each registered uprobe's
	 * breakpoint into every private mapping of the file that may execute
	 * (valid_vma: VM_MAYEXEC), a read-only one too, so a mapped .text
	 * holds int3 where another tool (or a killed nopctl) probes it */
	if (!(e = elf_begin(fd, ELF_C_READ, NULL))) {
		close(fd);
		return elf_fail(err, path, "is not an ELF file: give a program or a shared library");
	}
	b->elf = e;
	b->fd = fd;
	if ((ret = load(b, e, err)))
		nop_ubin_free(b);
	return ret;
}

void nop_ubin_free(struct nop_ubin *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->v[i].name);
		free(b->v[i].demangled);
	}
	free(b->v);
	b->v = NULL;
	b->n = 0;
	free(b->frag);
	b->frag = NULL;
	b->nfrag = 0;
	if (b->elf) {
		elf_end(b->elf);
		close(b->fd);
		b->elf = NULL;
	}
}

const char *nop_usym_shown(const struct nop_usym *u)
{
	return u->demangled ? u->demangled : u->name;
}
