/* Recognising V8 (a node executable, a libnode) from its ELF file: the v8dbg_* post-mortem metadata
 * every Node.js build exports, the layout the frame walker and the namer need. Parses bytes the
 * target controls: only ever called in ptop's unprivileged helper (elfhelper.c), every size bounded. */
#ifndef PTOP_V8ELF_H
#define PTOP_V8ELF_H
#include <stddef.h>
#include <stdint.h>

enum v8_elf_status {
	V8ELF_NOT_V8 = 0,  /* no v8dbg_ symbols: say nothing */
	V8ELF_SUPPORTED,   /* every value below was found and has the layout ptop reads */
	V8ELF_UNSUPPORTED, /* V8, but a value is missing or its layout is not one ptop reads (why, missing) */
};

enum v8_elf_why {
	V8WHY_NONE = 0,
	V8WHY_MISSING,      /* a v8dbg_ symbol ptop needs is absent (`missing` is its field's index) */
	V8WHY_COMPRESSED,   /* pointer compression or a 32-bit build: tagged values are not 8 bytes */
	V8WHY_TAGS,         /* heap-object or SMI tags that are not V8's 64-bit ones */
	V8WHY_RANGE,        /* an offset out of the range ptop accepts */
	V8WHY_NO_METADATA,  /* (the parent's) a node whose files have no v8dbg_ symbols at all */
	V8WHY__COUNT
};

/* Every value ptop takes from the metadata: field, then the symbol names it may have (V8 renamed
 * some member types over versions; the first found counts). */
#define V8_LAYOUT_FIELDS(X)                                                                                  \
	X(pointer_size, "SystemPointerSize", NULL)                                                           \
	X(heap_tag, "HeapObjectTag", NULL)                                                                   \
	X(heap_tag_mask, "HeapObjectTagMask", NULL)                                                          \
	X(smi_tag, "SmiTag", NULL)                                                                           \
	X(smi_tag_mask, "SmiTagMask", NULL)                                                                  \
	X(smi_shift, "SmiShiftSize", NULL)                                                                   \
	X(smi_value_shift, "SmiValueShift", NULL)                                                            \
	X(fp_function, "off_fp_function", NULL)                                                              \
	X(fp_context, "off_fp_context", "off_fp_context_or_frame_type")                                     \
	X(fp_bytecode, "off_fp_bytecode_array", NULL)                                                        \
	X(map, "class_HeapObject__map__Map", "class_HeapObject__map__Tagged_Map_")                          \
	X(map_type, "class_Map__instance_type__uint16_t", NULL)                                              \
	X(fn_shared, "class_JSFunction__shared__SharedFunctionInfo",                                         \
	  "class_JSFunction__shared__Tagged_SharedFunctionInfo_")                                            \
	X(sfi_name, "class_SharedFunctionInfo__name_or_scope_info__Object",                                  \
	  "class_SharedFunctionInfo__name_or_scope_info__Tagged_Object_")                                    \
	X(sfi_script, "class_SharedFunctionInfo__script_or_debug_info__HeapObject",                          \
	  "class_SharedFunctionInfo__script_or_debug_info__Tagged_HeapObject_")                              \
	X(script_name, "class_Script__name__Object", "class_Script__name__Tagged_Object_")                  \
	X(script_source, "class_Script__source__Object", "class_Script__source__Tagged_Object_")            \
	X(script_line_ends, "class_Script__line_ends__Object", "class_Script__line_ends__Tagged_Object_")   \
	X(string_length, "class_String__length__int32_t", "class_String__length__uint32_t")                 \
	X(seq_one_chars, "class_SeqOneByteString__chars__char", NULL)                                        \
	X(seq_two_chars, "class_SeqTwoByteString__chars__char", NULL)                                        \
	X(cons_first, "class_ConsString__first__String", "class_ConsString__first__Tagged_String_")         \
	X(cons_second, "class_ConsString__second__String", "class_ConsString__second__Tagged_String_")      \
	X(thin_actual, "class_ThinString__actual__String", "class_ThinString__actual__Tagged_String_")      \
	X(sliced_parent, "class_SlicedString__parent__String", "class_SlicedString__parent__Tagged_String_") \
	X(sliced_offset, "class_SlicedString__offset__SMI", "class_SlicedString__offset__Tagged_Smi_")      \
	X(array_length, "class_FixedArrayBase__length__SMI", "class_FixedArrayBase__length__Tagged_Smi_")   \
	X(array_data, "class_FixedArray__data__uintptr_t", NULL)                                             \
	X(first_nonstring, "FirstNonstringType", NULL)                                                       \
	X(string_repr_mask, "StringRepresentationMask", NULL)                                                \
	X(string_enc_mask, "StringEncodingMask", NULL)                                                       \
	X(seq_tag, "SeqStringTag", NULL)                                                                     \
	X(cons_tag, "ConsStringTag", NULL)                                                                   \
	X(thin_tag, "ThinStringTag", NULL)                                                                   \
	X(sliced_tag, "SlicedStringTag", NULL)                                                               \
	X(one_byte_tag, "OneByteStringTag", NULL)                                                            \
	X(scope_ncontextlocals, "scopeinfo_idx_ncontextlocals", NULL)                                        \
	X(scope_first_vars, "scopeinfo_idx_first_vars", NULL)                                                \
	X(type_fn, "type_JSFunction__JS_FUNCTION_TYPE", NULL)                                                \
	X(type_sfi, "type_SharedFunctionInfo__SHARED_FUNCTION_INFO_TYPE", NULL)                              \
	X(type_script, "type_Script__SCRIPT_TYPE", NULL)                                                     \
	X(type_scope_info, "type_ScopeInfo__SCOPE_INFO_TYPE", NULL)                                          \
	X(type_fixed_array, "type_FixedArray__FIXED_ARRAY_TYPE", NULL)                                      \
	X(type_bytecode, "type_BytecodeArray__BYTECODE_ARRAY_TYPE", NULL)

/* What inlined frames need, which V8 versions export in part (Node 18's V8 10 names no Code field
 * but its instructions; V8 11 dropped JSFunction::code and Code's instructions). Where the three last
 * are absent, v8_elf_analyze derives them from their exported neighbours (README "JavaScript
 * frames") and the walker confirms them at every sample; where anything else is absent, or 0 after
 * that (fn_code), there are no inlined frames: each inlined function's time is its caller's. */
#define V8_LAYOUT_OPTIONAL(X)                                                                                \
	X(type_byte_array, "type_ByteArray__BYTE_ARRAY_TYPE", NULL)                                          \
	X(type_weak_array, "type_WeakFixedArray__WEAK_FIXED_ARRAY_TYPE", NULL)                               \
	X(type_code, "type_Code__CODE_TYPE", NULL)                                                           \
	X(fn_feedback, "class_JSFunction__raw_feedback_cell__FeedbackCell",                                  \
	  "class_JSFunction__raw_feedback_cell__Tagged_FeedbackCell_")                                       \
	X(fn_proto, "class_JSFunction__prototype_or_initial_map__HeapObject",                                \
	  "class_JSFunction__prototype_or_initial_map__Tagged_HeapObject_")                                  \
	X(code_deopt, "class_Code__deoptimization_data__FixedArray",                                         \
	  "class_Code__deoptimization_data__Tagged_FixedArray_")                                             \
	X(code_positions, "class_Code__source_position_table__ByteArray",                                    \
	  "class_Code__source_position_table__Tagged_ByteArray_")                                            \
	X(deopt_literals, "DeoptimizationDataLiteralArrayIndex", NULL)                                       \
	X(deopt_inlining, "DeoptimizationDataInliningPositionsIndex", NULL)                                  \
	X(fn_code, "class_JSFunction__code__Code", "class_JSFunction__code__Tagged_Code_")                  \
	X(code_istart, "class_Code__instruction_start__uintptr_t", "class_Code__instruction_start__Address") \
	X(code_isize, "class_Code__instruction_size__int", "class_Code__instruction_size__uint32_t")

/* Values only some V8 versions export, each 0 where absent; they refine what the others give.
 * V8 12 (Node 22) names JSFunction's last subtype; moves Code's deoptimization data and position
 * table, and the arrays they are, into trusted space (TrustedFixedArray, TrustedByteArray: laid out
 * as FixedArray and ByteArray) and no longer exports the two fields: they are derived from the
 * exported wrapper and instruction-stream fields (v8elf.c). */
#define V8_LAYOUT_EXTRA(X)                                                                                   \
	X(type_fn_last, "LastJSFunctionType", NULL)                                                          \
	X(type_trusted_fixed, "type_TrustedFixedArray__TRUSTED_FIXED_ARRAY_TYPE", NULL)                      \
	X(type_trusted_bytes, "type_TrustedByteArray__TRUSTED_BYTE_ARRAY_TYPE", NULL)                        \
	X(code_wrapper, "class_Code__wrapper__Tagged_CodeWrapper_", NULL)                                    \
	X(code_istream, "class_Code__instruction_stream__Tagged_InstructionStream_", NULL)

/* Later spellings of a field's symbol beyond the two above: field, symbol. */
#define V8_LAYOUT_RENAMED(X) X(sfi_script, "class_SharedFunctionInfo__script__Tagged_HeapObject_")

#define V8_LAYOUT_MEMBER(field, name, alt) int32_t field;
struct v8_layout {
	V8_LAYOUT_FIELDS(V8_LAYOUT_MEMBER)
	V8_LAYOUT_OPTIONAL(V8_LAYOUT_MEMBER)
	V8_LAYOUT_EXTRA(V8_LAYOUT_MEMBER)
	int32_t type_fn_end; /* past JSFunction's subtypes: LastJSFunctionType + 1, else the smallest
			      * instance type the metadata names above JS_FUNCTION_TYPE */
};
#undef V8_LAYOUT_MEMBER

struct v8_elf_info {
	int32_t status;           /* enum v8_elf_status */
	int32_t why;              /* enum v8_elf_why */
	int32_t missing;          /* V8WHY_MISSING: index of the field in V8_LAYOUT_FIELDS */
	int32_t pad;
	struct v8_layout layout;
};

/* Fills out from an ELF file in memory. */
void v8_elf_analyze(const void *buf, size_t len, struct v8_elf_info *out);
/* The layout's checks (helper and parent both make them: the parent trusts no answer): 0 when it is
 * the 64-bit uncompressed layout with offsets in range, else a V8WHY_* code. */
int v8_layout_check(const struct v8_layout *l);
/* The metadata symbol of field index i ("off_fp_function"), for a note; "" when out of range. */
const char *v8_layout_field_symbol(int32_t i);
#endif
