/* kfuncsig.c - a kernel function's signature from the kernel's BTF
 * (/sys/kernel/btf, read with libbpf): its parameters' names and kinds
 * and its return type, for the probes --retval and --args place. The
 * names reach a probe definition only after a check of every character.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "probes/probes.h"

/* typedefs, const, volatile, type tags: the type under them */
static const struct btf_type *strip(const struct btf *b, __u32 *id)
{
	const struct btf_type *t = btf__type_by_id(b, *id);

	while (t && (btf_is_mod(t) || btf_is_typedef(t))) {
		*id = t->type;
		t = btf__type_by_id(b, *id);
	}
	return t;
}

static bool is_char(const struct btf *b, const struct btf_type *t)
{
	const char *n = t && btf_is_int(t) ? btf__name_by_offset(b, t->name_off) : NULL;

	return n && t->size == 1 && strstr(n, "char");
}

/* one type to a parameter's or return value's kind */
static void classify(const struct btf *b, __u32 id, struct nop_kparam *p)
{
	const struct btf_type *t = strip(b, &id);

	p->size = 8;
	p->kind = NOP_KP_OTHER;
	if (!t || id == 0) {
		p->kind = NOP_KP_VOID;
		p->size = 0;
	} else if (btf_is_ptr(t)) {
		__u32 to = t->type;

		p->kind = is_char(b, strip(b, &to)) ? NOP_KP_STRING : NOP_KP_POINTER;
	} else if (btf_is_int(t)) {
		p->size = (int)t->size;
		p->kind = btf_int_encoding(t) & BTF_INT_SIGNED ? NOP_KP_SIGNED : NOP_KP_UNSIGNED;
		if (t->size == 1 && !(btf_int_encoding(t) & BTF_INT_BOOL) && is_char(b, t))
			p->kind = NOP_KP_SIGNED;
	} else if (btf_is_any_enum(t)) {
		p->size = (int)t->size;
		p->kind = NOP_KP_SIGNED;
	}
	if (p->size != 1 && p->size != 2 && p->size != 4 && p->size != 8)
		p->kind = NOP_KP_OTHER; /* a struct by value, a 128-bit integer */
}

static bool ident(const char *s)
{
	if (!*s || isdigit((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static struct btf *vmlinux; /* loaded once: 5 MB parsed (a run looks up few names) */

/* The kernel's BTF, read whole (nop_read_file: 64 KiB a read) and parsed
 * as raw BTF: libbpf's own loader reads it through stdio, 4 KiB a read,
 * each read handed the rest of a 5.5 MB buffer, which valgrind checks
 * whole at every read. libbpf's loader stays for a kernel without that
 * file (it also looks in /boot and /lib/modules). */
static struct btf *load_vmlinux(void)
{
	size_t len;
	char *raw = nop_read_file("/sys/kernel/btf/vmlinux", &len, NULL);
	struct btf *b;

	if (!raw)
		return btf__load_vmlinux_btf();
	b = btf__new(raw, (__u32)len);
	free(raw);
	return b; /* NULL, errno set, on an error (libbpf 1.0 on) */
}

int nop_kfunc_sig(const char *func, const char *module, struct nop_ksig *sig, struct nop_error *err)
{
	struct btf *b, *mod = NULL;
	const struct btf_type *fn, *proto;
	const struct btf_param *pa;
	__s32 id;

	memset(sig, 0, sizeof(*sig));
	if (!vmlinux && !(vmlinux = load_vmlinux())) {
		nop_error_set(err, NOP_EKERNEL, errno, "this kernel has no BTF (/sys/kernel/btf/vmlinux:"
			      " CONFIG_DEBUG_INFO_BTF): nopctl cannot know %s's arguments or return type",
			      func);
		return -1;
	}
	b = vmlinux;
	if (module && *module && (mod = btf__load_module_btf(module, vmlinux)))
		b = mod;
	/* a compiler's clone (name.isra.0) has its original's signature,
	 * unless the clone dropped parameters: then it has none in BTF */
	if ((id = btf__find_by_name_kind(b, func, BTF_KIND_FUNC)) < 0) {
		btf__free(mod);
		return 0; /* not found: sig->found stays false */
	}
	fn = btf__type_by_id(b, (__u32)id);
	proto = fn ? btf__type_by_id(b, fn->type) : NULL;
	if (!proto || !btf_is_func_proto(proto)) {
		btf__free(mod);
		return 0;
	}
	sig->found = true;
	classify(b, proto->type, &sig->ret);
	pa = btf_params(proto);
	for (int i = 0; i < btf_vlen(proto) && sig->n < NOP_KSIG_MAX; i++) {
		struct nop_kparam *p = &sig->p[sig->n];
		const char *n = btf__name_by_offset(b, pa[i].name_off);

		if (!n || !ident(n) || strlen(n) >= sizeof(p->name))
			break; /* varargs, or an unnamed parameter: the rest unknown */
		snprintf(p->name, sizeof(p->name), "%s", n);
		classify(b, pa[i].type, p);
		sig->n++;
	}
	btf__free(mod);
	return 0;
}
