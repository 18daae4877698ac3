/* The interpreter-frames section a BPF walker writes after the stack snapshot (README "Sample
 * record and unwinding design"): a fixed header, then the walker's own records. ptop treats the
 * bytes as opaque (they are part of the aggregation key); the walker of `kind` reads them back in
 * user space, after the capability drop, and interp.c merges its frames into the native stack.
 * Shared by BPF and user space: plain fixed-size types only. */
#ifndef PTOP_INTERP_SECTION_H
#define PTOP_INTERP_SECTION_H

struct interp_section_hdr {
	__u16 kind;    /* INTERP_* below: which walker wrote the records */
	__u16 nframes; /* records that follow */
	__u32 len;     /* bytes, header included */
};

#define INTERP_CPYTHON 1 /* python/python.h struct py_frame records */
#define INTERP_HOTSPOT 2 /* hotspot/ (the JVM) */
#define INTERP_V8 3      /* v8/ (Node.js) */

#endif
