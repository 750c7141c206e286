// SPDX-License-Identifier: GPL-2.0
/*
 * insnprof.c - a QEMU TCG plugin (API 1): guest instructions per translated
 * block, snapshotted each time the block at trigger= executes.
 *
 * Usage: -plugin insnprof.so,trigger=0xffffffff81234560,out=/tmp/prof
 * Writes out.N (N = 0, 1, ...) at each execution of the trigger block:
 * "vaddr count" per block with a non-zero count, cumulative, and "user
 * count" for every block below the kernel's half.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct {
	const char *target_name;
	struct { int min, cur; } version;
	bool system_emulation;
	union { struct { int smp_vcpus, max_vcpus; } system; };
} qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*tb_trans_cb)(qemu_plugin_id_t, struct qemu_plugin_tb *);
typedef void (*udata_cb)(unsigned int, void *);
typedef void (*atexit_cb)(qemu_plugin_id_t, void *);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, tb_trans_cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *, udata_cb,
					  enum qemu_plugin_cb_flags, void *);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *,
					      enum qemu_plugin_op, void *, uint64_t);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, atexit_cb, void *);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

struct block { uint64_t vaddr, count; struct block *next; };
#define NBUCKET (1 << 20)
static struct block *table[NBUCKET];
static struct block user;
static uint64_t trigger;
static const char *out = "/tmp/insnprof";
static int snaps;

static struct block *block_of(uint64_t vaddr)
{
	uint64_t h = (vaddr * 0x9E3779B97F4A7C15ull) >> 44;
	struct block *b;

	if (vaddr < 0xffff800000000000ull)
		return &user;
	for (b = table[h]; b; b = b->next)
		if (b->vaddr == vaddr)
			return b;
	b = calloc(1, sizeof(*b));
	b->vaddr = vaddr;
	b->next = table[h];
	table[h] = b;
	return b;
}

static void snapshot(unsigned int vcpu, void *udata)
{
	char name[4096];
	FILE *f;
	size_t i;
	struct block *b;

	snprintf(name, sizeof(name), "%s.%d", out, snaps++);
	f = fopen(name, "w");
	if (!f)
		return;
	fprintf(f, "user %" PRIu64 "\n", user.count);
	for (i = 0; i < NBUCKET; i++)
		for (b = table[i]; b; b = b->next)
			if (b->count)
				fprintf(f, "%" PRIx64 " %" PRIu64 "\n", b->vaddr, b->count);
	fclose(f);
}

static void trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t va = qemu_plugin_tb_vaddr(tb);
	struct block *b = block_of(va);

	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->count, qemu_plugin_tb_n_insns(tb));
	if (va == trigger)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, snapshot, QEMU_PLUGIN_CB_NO_REGS, NULL);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "trigger=", 8))
			trigger = strtoull(argv[i] + 8, NULL, 0);
		else if (!strncmp(argv[i], "out=", 4))
			out = argv[i] + 4;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, trans);
	return 0;
}
