/* The layout of one HotSpot VM, read from its own exported description of its structures
 * (gHotSpotVMStructs, gHotSpotVMTypes and the constants tables, hs_elf.h): field offsets, type
 * sizes and the addresses of the statics the frame walker needs. Never a table of guesses: a field
 * that the VM does not describe leaves the VM unsupported (hs_vm_open says which). Reads the
 * target's memory through a caller's bounded reader; run unprivileged only; fuzzed. */
#ifndef PTOP_HS_VM_H
#define PTOP_HS_VM_H
#include "hs_elf.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reads len bytes of the target at addr; 0 when all were read. */
typedef int (*hs_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/* X(slot, type, field, required): a field's offset, or a static's address. Alternative names of
 * one field across versions have one slot each; hs_vm.c picks. */
#define HS_FIELDS(X)                                                                   \
	X(vm_major, "Abstract_VM_Version", "_vm_major_version", 1)                     \
	X(codecache_heaps, "CodeCache", "_heaps", 1)                                   \
	X(codecache_low, "CodeCache", "_low_bound", 1)                                 \
	X(codecache_high, "CodeCache", "_high_bound", 1)                               \
	X(growable_len, "GrowableArrayBase", "_len", 0)                                \
	X(growable_len_old, "GrowableArray<int>", "_len", 0)                           \
	X(growable_len_generic, "GenericGrowableArray", "_len", 0)                     \
	X(growable_data, "GrowableArray<int>", "_data", 1)                             \
	X(heap_memory, "CodeHeap", "_memory", 1)                                       \
	X(heap_segmap, "CodeHeap", "_segmap", 1)                                       \
	X(heap_log2_seg, "CodeHeap", "_log2_segment_size", 1)                          \
	X(vs_low, "VirtualSpace", "_low", 1)                                           \
	X(vs_high, "VirtualSpace", "_high", 1)                                         \
	X(heapblock_used, "HeapBlock::Header", "_used", 1)                             \
	X(blob_name, "CodeBlob", "_name", 1)                                           \
	X(blob_size, "CodeBlob", "_size", 1)                                           \
	X(blob_frame_complete, "CodeBlob", "_frame_complete_offset", 1)                \
	X(blob_frame_size, "CodeBlob", "_frame_size", 1)                               \
	X(blob_code_begin, "CodeBlob", "_code_begin", 0)                               \
	X(blob_code_offset, "CodeBlob", "_code_offset", 0)                             \
	X(blob_mutable_data, "CodeBlob", "_mutable_data", 0)                           \
	X(blob_mutable_data_size, "CodeBlob", "_mutable_data_size", 0)                 \
	X(blob_relocation_size, "CodeBlob", "_relocation_size", 0)                     \
	X(cm_method, "CompiledMethod", "_method", 0)                                   \
	X(nm_method, "nmethod", "_method", 0)                                          \
	X(cm_scopes_data_begin, "CompiledMethod", "_scopes_data_begin", 0)             \
	X(nm_scopes_data_begin, "nmethod", "_scopes_data_begin", 0)                    \
	X(nm_metadata_offset, "nmethod", "_metadata_offset", 0)                        \
	X(nm_scopes_pcs_offset, "nmethod", "_scopes_pcs_offset", 1)                    \
	X(nm_compile_id, "nmethod", "_compile_id", 0)                                  \
	X(nm_orig_pc_offset, "nmethod", "_orig_pc_offset", 0)                          \
	X(cm_deopt_handler_begin, "CompiledMethod", "_deopt_handler_begin", 0)         \
	X(nm_deopt_handler_offset, "nmethod", "_deopt_handler_offset", 0)              \
	X(nm_dependencies_offset, "nmethod", "_dependencies_offset", 0)                \
	X(nm_immutable_data, "nmethod", "_immutable_data", 0)                          \
	X(nm_scopes_data_offset, "nmethod", "_scopes_data_offset", 0)                  \
	X(pcdesc_pc_offset, "PcDesc", "_pc_offset", 1)                                 \
	X(pcdesc_scope_offset, "PcDesc", "_scope_decode_offset", 1)                    \
	X(method_const, "Method", "_constMethod", 1)                                   \
	X(cmethod_constants, "ConstMethod", "_constants", 1)                           \
	X(cmethod_name_index, "ConstMethod", "_name_index", 1)                         \
	X(cmethod_sig_index, "ConstMethod", "_signature_index", 1)                     \
	X(cmethod_code_size, "ConstMethod", "_code_size", 0)                           \
	X(cpool_holder, "ConstantPool", "_pool_holder", 1)                             \
	X(cpool_length, "ConstantPool", "_length", 1)                                  \
	X(klass_name, "Klass", "_name", 1)                                             \
	X(klass_mirror, "Klass", "_java_mirror", 0)                                    \
	X(oophandle_obj, "OopHandle", "_obj", 0)                                       \
	X(iklass_methods, "InstanceKlass", "_methods", 1)                              \
	X(iklass_constants, "InstanceKlass", "_constants", 1)                          \
	X(array_ptr_len, "Array<Klass*>", "_length", 1)                                \
	X(array_ptr_data, "Array<Klass*>", "_data[0]", 1)                              \
	X(symbol_length, "Symbol", "_length", 1)                                       \
	X(symbol_body, "Symbol", "_body", 1)

/* X(slot, type): a type's size in bytes. */
#define HS_TYPES(X)                   \
	X(size_heapblock, "HeapBlock") \
	X(size_pcdesc, "PcDesc")       \
	X(size_cpool, "ConstantPool") \
	X(size_cmethod, "ConstMethod")

/* X(slot, name): an int constant. The interpreter frame layout, in words from the frame pointer.
 * An x86-64 VM exports the sender-sp and last-sp slots; the Method* slot is the next one down on
 * every HotSpot since JDK 8, x86-64 and aarch64 (frame_<cpu>.hpp), so it is taken as last_sp - 1
 * and every Method* read there is checked before use (hs_walk.c). An aarch64 VM exports none of
 * the three (its vmStructs_aarch64.hpp declares no constant; JVMCI's config marks the two
 * "amd64" only): there the layout is frame_aarch64.hpp's, the same slots since the port (JDK 8),
 * sender sp at -1 and last sp at -2 (hs_vm.c). */
#define HS_INTS(X)                                                             \
	X(fr_sender_sp, "frame::interpreter_frame_sender_sp_offset")           \
	X(fr_last_sp, "frame::interpreter_frame_last_sp_offset")

struct hs_vm {
#define HS_SLOT(slot, ...) uint64_t slot;
	HS_FIELDS(HS_SLOT)
	HS_TYPES(HS_SLOT)
#undef HS_SLOT
#define HS_INT_SLOT(slot, name) int64_t slot;
	HS_INTS(HS_INT_SLOT)
#undef HS_INT_SLOT
	/* the fields' presence (bit = position in HS_FIELDS, HS_TYPES, HS_INTS) */
	uint64_t have_fields, have_types, have_ints;
	/* chosen among alternatives */
	uint64_t off_growable_len, off_method, off_scopes_data_begin;
	int64_t fr_method; /* fr_last_sp - 1 */
	/* The bytecode pointer's slot, 0: not checked. x86-64 only, where it is fr_method - 5 on every
	 * HotSpot since JDK 9 (mirror, mdp, cache, locals, bcp: frame_x86.hpp), like fr_method a slot the
	 * tables do not give; what it holds is checked against the method (hs_walk.c interpreted()). */
	int64_t fr_bcp;
	/* The class mirror's slot, 0: not checked. x86-64 only, fr_method - 1 since JDK 9 (frame_x86.hpp,
	 * the same source as fr_bcp), and only where the tables describe Klass::_java_mirror as an
	 * OopHandle (OopHandle::_obj): the interpreter stores there, when the frame is built, the
	 * java.lang.Class of the method's holder, which lives in the Java heap, not in metaspace, so a
	 * class unloaded and replaced by one of the same shape at the same metaspace addresses between
	 * the sample and its walk has another one (hs_walk.c mirror_ok()). */
	int64_t fr_mirror;
	/* Where an nmethod keeps its tables: HS_NM_IN_BLOB (JDK 22 and before: code, metadata, PcDescs
	 * and scopes at offsets from the nmethod) or HS_NM_SPLIT (JDK 25: PcDescs and scopes in
	 * _immutable_data, metadata in the blob's _mutable_data after its relocations). */
	int nm_layout;
	bool have_compile_id; /* nmethod::_compile_id: without it nothing is cached (hs_walk.h) */
	/* Where an nmethod's deopt handler is: HS_DEOPT_ADDRESS (JDK 22 and before: a pointer),
	 * HS_DEOPT_OFFSET (JDK 25: an offset from the nmethod), 0: not described (frames being
	 * deoptimised stop the walk) */
	int deopt;
	/* HotSpot's compressed ints exclude bytes below this (UNSIGNED5's X: 1 since JDK 20, 0 before) */
	unsigned unsigned5_x;
	uint64_t code_low, code_high; /* the code cache's bounds (CodeCache::_low_bound, _high_bound) */
};

/* The walker's architecture is the target's: ptop is built for each (dist/ptop, dist/arm64/ptop). */
#if defined(__aarch64__)
#define HS_ARM64 true
#else
#define HS_ARM64 false
#endif

enum { HS_NM_IN_BLOB = 1, HS_NM_SPLIT = 2 };
enum { HS_DEOPT_ADDRESS = 1, HS_DEOPT_OFFSET = 2 };

/* 0: the VM is described as the walker needs it. Otherwise why not, in words, in why. */
int hs_vm_open(hs_read_fn rd, void *ctx, const struct hs_elf_syms *syms, struct hs_vm *vm, char *why, size_t len);
#endif
