/* Types shared by the V8 frame walker (v8.bpf.c) and user space (v8frames.c): the per-process layout
 * user space pushes into `v8_procs`, and the JavaScript frames the walker records. Plain fixed-size
 * structs: the same bytes are read by both sides. */
#ifndef PTOP_V8_H
#define PTOP_V8_H
#include "interp_section.h"

#define V8_MAX_PROCS 1024
#define V8_MAX_LINKS 96    /* frame-pointer links followed per sample (JS and other frames) */
#define V8_SECTION_FRAMES 21 /* JS frames recorded: 8-byte header + 48 per frame <= PTOP_INTERP_MAX */
#define V8_FRAMES_CAP V8_SECTION_FRAMES /* scratch array size: the walker bounds its index by it */

/* The layout the walker needs, every value from the target's own v8dbg_* metadata (v8elf.c). Tags
 * and the SMI encoding are not here: the helper accepts only the 64-bit layout without pointer
 * compression (tag 1 in the low two bits of a heap pointer, SMI tag 0 in bit 0). */
struct v8_proc {
	__s32 fp_function;   /* v8dbg_off_fp_function: the JSFunction slot below a JS frame's fp */
	__s32 fp_context;    /* v8dbg_off_fp_context: a context (heap object) or a frame-type marker (SMI) */
	__s32 fp_bytecode;   /* v8dbg_off_fp_bytecode_array: an interpreted (or baseline) frame's bytecode */
	__u32 map;           /* HeapObject::map */
	__u32 map_type;      /* Map::instance_type (u16) */
	__u32 fn_shared;     /* JSFunction::shared */
	__u32 sfi_name;      /* SharedFunctionInfo::name_or_scope_info */
	__u32 sfi_script;    /* SharedFunctionInfo::script_or_debug_info */
	__u16 type_fn_first; /* JS_FUNCTION_TYPE */
	__u16 type_fn_end;   /* the next instance type the metadata names: JSFunction's subtypes lie between */
	__u16 type_sfi;      /* SHARED_FUNCTION_INFO_TYPE */
	__u16 type_code;     /* CODE_TYPE */
	__u16 type_bytecode; /* BYTECODE_ARRAY_TYPE */
	__u16 pad16;
	__u32 fn_code;       /* JSFunction::code: the function's current code */
	__u32 code_istart;   /* Code: its instructions' start address */
	__u32 code_isize;    /* Code: their size (u32) */
};

/* One JavaScript frame, as seen at sample time. The two fields are kept so that user space, reading
 * the SharedFunctionInfo at the window's end, can tell whether it is still the same function (the
 * GC moves objects): a function whose fields changed is marked unknown, never misnamed. */
struct v8_frame {
	__u64 sfi;    /* SharedFunctionInfo, tagged pointer */
	__u64 pc;     /* the pc executing in this frame: the callee's return address, or the sample's pc when
		       * it runs in the function's code or in the interpreter for it; 0 when the sample's
		       * pc is a frameless callee's (a builtin, a prologue): its caller's pc is unknown */
	__u64 name;   /* its name_or_scope_info field, as read then */
	__u64 script; /* its script_or_debug_info field, as read then */
	/* The function's Code and its instructions' start when pc lies in them (optimised or baseline
	 * code): user space finds the functions inlined at pc from the code's inlining positions. 0
	 * otherwise (interpreted, on-stack-replaced code, a function whose code changed since). */
	__u64 code;
	__u64 istart;
};

/* A whole section: innermost frame first. */
struct v8_stack {
	struct interp_section_hdr hdr;
	struct v8_frame frames[V8_FRAMES_CAP];
};

#endif
