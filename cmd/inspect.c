/* inspect.c - nopctl inspect FUNC: ftrace's patch site, as the CPU sees it. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

int cmd_inspect(struct opts *o)
{
	struct nop_error err = { 0 };
	struct nop_fields f;
	struct nop_site s;
	struct nop_funcs fs;
	const char *tdir;
	int bad;
	char bytes[64] = "", addr[3][24];
	bool json = o->enc == NOP_ENC_JSON;

	if (o->npatterns != 1) {
		nop_error_set(&err, NOP_EUSAGE, 0, "inspect takes one function name (see 'nopctl list')");
		return report_error(o, &err);
	}
	if (nop_pattern_check(o->patterns[0], &err) || !(tdir = nop_tracefs_dir(&err)) || load_funcs(tdir, &fs, &err))
		return report_error(o, &err);
	bad = check_patterns(&fs, o, &err);
	nop_funcs_free(&fs);
	if (bad || nop_inspect(tdir, o->patterns[0], &s, &err))
		return report_error(o, &err);
	for (size_t i = 0; i < sizeof(s.bytes); i++)
		snprintf(bytes + strlen(bytes), sizeof(bytes) - strlen(bytes), "%s%02x", i ? " " : "",
			 s.bytes[i]);
	snprintf(addr[0], sizeof(addr[0]), "%#llx", s.addr);
	snprintf(addr[1], sizeof(addr[1]), "%#llx", s.site);
	snprintf(addr[2], sizeof(addr[2]), "%#llx", s.target);
	nop_fields_open(&f, stdout, json);
	nop_field_str(&f, "type", NULL, "site");
	nop_field_str(&f, "function", "%s", s.func);
	nop_field_str(&f, "module", *s.module ? " [%s]" : NULL, *s.module ? s.module : NULL);
	nop_field_str(&f, "address", " at %s", addr[0]);
	nop_field_str(&f, "site", "\n  patch site  %s", addr[1]);
	nop_field_u64(&f, "site_offset", " (+%llu", s.site - s.addr);
	nop_field_str(&f, "site_from", ", from %s)", s.site_from);
	nop_field_str(&f, "bytes", "\n  bytes       %s", bytes);
	nop_field_bool(&f, "endbr64", s.endbr ? "\n  +0          f3 0f 1e fa: endbr64, the IBT landing pad" : NULL,
		       s.endbr);
	nop_field_bool(&f, "endbr64_sealed",
		       s.sealed ? "\n  +0          66 0f 1f 00: an endbr64 sealed into a NOP (IBT: never"
				  " called indirectly)" : NULL, s.sealed);
	nop_field_str(&f, "state", "\n  site        %s", nop_site_state_name(s.state));
	nop_field_str(&f, "meaning", ": %s", nop_site_meaning(s.state));
	if (s.state == NOP_SITE_CALL || s.state == NOP_SITE_JMP) {
		nop_field_str(&f, "target", "\n  target      %s", addr[2]);
		nop_field_str(&f, "target_symbol", *s.target_sym ? " %s" : NULL, *s.target_sym ? s.target_sym : NULL);
	}
	nop_field_str(&f, "enabled", "\n  enabled_functions: %s", *s.enabled ? s.enabled : json ? "" : "(none)");
	nop_fields_close(&f);
	return 0;
}
