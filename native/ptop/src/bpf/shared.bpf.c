// SPDX-License-Identifier: GPL-2.0
/* The definitions behind shared.bpf.h, snapshot.bpf.h and interp.bpf.h: the maps and globals the
 * units declare extern, and the object's license. All here, in the unit linked first (Makefile: an
 * extern before its definition is misplaced by bpftool 7.1's linker). */
#include "shared.bpf.h"
#include "snapshot.bpf.h"

char LICENSE[] SEC("license") = "GPL";

volatile __u64 start_ns = 0;
volatile __u32 stopped = 0;
volatile __u8 ran[P__COUNT] = {};

struct ptop_targets_map targets SEC(".maps");
struct ptop_stacks_map stacks SEC(".maps");
struct ptop_samples_map samples SEC(".maps");
struct ptop_stats_map stats SEC(".maps");
struct ptop_scratch_map scratch SEC(".maps");
struct py_scratch_map py_scratch SEC(".maps");
