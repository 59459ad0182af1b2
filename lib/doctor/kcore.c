/* kcore.c - reading the running kernel's text through /proc/kcore, an ELF
 * core file whose PT_LOAD segments map kernel virtual addresses. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor/doctor.h"

const char *nop_kcore_path = "/proc/kcore";

static int kcore_error(struct nop_error *err, int e)
{
	if (e == EPERM || e == EACCES)
		nop_error_set(err, NOP_EKERNEL, e,
			      "cannot read %s: %s (it needs root with CAP_SYS_RAWIO, and kernel"
			      " lockdown 'confidentiality' forbids it; lockdown here is '%s')",
			      nop_kcore_path, strerror(e), nop_lockdown_mode());
	else if (e == ENOENT)
		nop_error_set(err, NOP_EKERNEL, e,
			      "%s does not exist: this kernel was built without CONFIG_PROC_KCORE",
			      nop_kcore_path);
	else
		nop_error_io(err, "read", nop_kcore_path, e);
	return -1;
}

int nop_kcore_read(unsigned long long addr, void *buf, size_t len, struct nop_error *err)
{
	int fd = open(nop_kcore_path, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;
	int ret = -1;

	if (fd < 0)
		return kcore_error(err, errno);
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr)) {
		nop_error_set(err, NOP_EKERNEL, 0, "%s is not a 64-bit ELF core", nop_kcore_path);
		goto out;
	}
	for (int i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + (off_t)i * sizeof(ph)) != sizeof(ph))
			break;
		if (ph.p_type != PT_LOAD || addr < ph.p_vaddr || addr + len > ph.p_vaddr + ph.p_memsz)
			continue;
		if (pread(fd, buf, len, ph.p_offset + (addr - ph.p_vaddr)) != (ssize_t)len) {
			kcore_error(err, errno ? errno : EIO);
			goto out;
		}
		ret = 0;
		goto out;
	}
	nop_error_set(err, NOP_EKERNEL, 0, "address %#llx is not mapped in %s", addr, nop_kcore_path);
out:
	close(fd);
	return ret;
}
