/*
 * qemu-insn-count.c: a QEMU TCG plugin that counts the guest instructions
 * a qemu-user process executes (every thread together) and writes the
 * total, one decimal number, to the file named by its out= argument (or
 * to stderr) when the process exits. scripts/arm64-counts.sh builds it:
 *
 *   gcc -shared -fPIC -O2 -o libinsncount.so scripts/qemu-insn-count.c
 *   qemu-aarch64 -plugin ./libinsncount.so,out=count.txt ./prog
 *
 * Each translated block adds its instruction count to one counter when it
 * executes (an inline add: no callback per instruction). Debian's
 * qemu-user is built with plugin support but ships neither plugins nor
 * the plugin header, so the few functions of QEMU's plugin API (version 1,
 * include/qemu/qemu-plugin.h, stable since QEMU 4.2) used here are
 * declared below.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
typedef struct {
	const char *target_name;
	struct {
		int min, cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus, max_vcpus;
		} system;
	};
} qemu_info_t;
struct qemu_plugin_tb;
enum { QEMU_PLUGIN_INLINE_ADD_U64 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, void (*cb)(qemu_plugin_id_t, struct qemu_plugin_tb *));
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, int op, void *ptr, uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, void (*cb)(qemu_plugin_id_t, void *), void *userdata);

EXPORT int qemu_plugin_version = 1;

static uint64_t insns;
static const char *out;

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &insns, qemu_plugin_tb_n_insns(tb));
}

static void finished(qemu_plugin_id_t id, void *userdata)
{
	FILE *f = out ? fopen(out, "w") : stderr;
	if (f == NULL) {
		fprintf(stderr, "qemu-insn-count: cannot write %s\n", out);
		return;
	}
	fprintf(f, "%llu\n", (unsigned long long)insns);
	if (f != stderr)
		fclose(f);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		if (strncmp(argv[i], "out=", 4) == 0) {
			out = argv[i] + 4;
		} else {
			fprintf(stderr, "qemu-insn-count: unknown argument %s (want out=FILE)\n", argv[i]);
			return 1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
	qemu_plugin_register_atexit_cb(id, finished, NULL);
	return 0;
}
