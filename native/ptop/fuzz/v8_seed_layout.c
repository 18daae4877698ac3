/* Seed for the V8 fuzz harnesses: the v8dbg_ values ptop reads, as Node.js 20.20.2 (V8 11.3) on
 * amd64 exports them. Compiled into fuzz_v8name (which reads its own layout back with v8elf.c) and,
 * by test/live/ptop-fuzz.test.ts, into a small shared object that seeds fuzz_v8elf. Each is 4 bytes as
 * in node: ASan's red zones would pad them, and v8elf.c reads 4-byte symbols only. */
#define V8DBG __attribute__((no_sanitize("address"))) const int
V8DBG v8dbg_SystemPointerSize = 8;
V8DBG v8dbg_HeapObjectTag = 1;
V8DBG v8dbg_HeapObjectTagMask = 3;
V8DBG v8dbg_SmiTag = 0;
V8DBG v8dbg_SmiTagMask = 1;
V8DBG v8dbg_SmiShiftSize = 31;
V8DBG v8dbg_SmiValueShift = 1;
V8DBG v8dbg_off_fp_function = -16;
V8DBG v8dbg_off_fp_context = -8;
V8DBG v8dbg_class_HeapObject__map__Map = 0;
V8DBG v8dbg_class_Map__instance_type__uint16_t = 12;
V8DBG v8dbg_class_JSFunction__shared__SharedFunctionInfo = 24;
V8DBG v8dbg_class_SharedFunctionInfo__name_or_scope_info__Object = 16;
V8DBG v8dbg_class_SharedFunctionInfo__script_or_debug_info__HeapObject = 32;
V8DBG v8dbg_class_Script__name__Object = 16;
V8DBG v8dbg_class_Script__source__Object = 8;
V8DBG v8dbg_class_Script__line_ends__Object = 56;
V8DBG v8dbg_class_String__length__int32_t = 12;
V8DBG v8dbg_class_SeqOneByteString__chars__char = 16;
V8DBG v8dbg_class_SeqTwoByteString__chars__char = 16;
V8DBG v8dbg_class_ConsString__first__String = 16;
V8DBG v8dbg_class_ConsString__second__String = 24;
V8DBG v8dbg_class_ThinString__actual__String = 16;
V8DBG v8dbg_class_SlicedString__parent__String = 16;
V8DBG v8dbg_class_SlicedString__offset__SMI = 24;
V8DBG v8dbg_class_FixedArrayBase__length__SMI = 8;
V8DBG v8dbg_class_FixedArray__data__uintptr_t = 16;
V8DBG v8dbg_FirstNonstringType = 128;
V8DBG v8dbg_StringRepresentationMask = 7;
V8DBG v8dbg_StringEncodingMask = 8;
V8DBG v8dbg_SeqStringTag = 0;
V8DBG v8dbg_ConsStringTag = 1;
V8DBG v8dbg_ThinStringTag = 5;
V8DBG v8dbg_SlicedStringTag = 3;
V8DBG v8dbg_OneByteStringTag = 8;
V8DBG v8dbg_scopeinfo_idx_ncontextlocals = 2;
V8DBG v8dbg_scopeinfo_idx_first_vars = 3;
V8DBG v8dbg_type_JSFunction__JS_FUNCTION_TYPE = 2066;
V8DBG v8dbg_type_SharedFunctionInfo__SHARED_FUNCTION_INFO_TYPE = 262;
V8DBG v8dbg_type_Script__SCRIPT_TYPE = 167;
V8DBG v8dbg_type_ScopeInfo__SCOPE_INFO_TYPE = 261;
V8DBG v8dbg_type_FixedArray__FIXED_ARRAY_TYPE = 175;
V8DBG v8dbg_type_ByteArray__BYTE_ARRAY_TYPE = 190;
V8DBG v8dbg_type_WeakFixedArray__WEAK_FIXED_ARRAY_TYPE = 240;
V8DBG v8dbg_type_Code__CODE_TYPE = 245;
V8DBG v8dbg_class_JSFunction__raw_feedback_cell__FeedbackCell = 40;
V8DBG v8dbg_class_JSFunction__prototype_or_initial_map__HeapObject = 56;
V8DBG v8dbg_class_Code__deoptimization_data__FixedArray = 16;
V8DBG v8dbg_class_Code__source_position_table__ByteArray = 24;
V8DBG v8dbg_DeoptimizationDataLiteralArrayIndex = 2;
V8DBG v8dbg_DeoptimizationDataInliningPositionsIndex = 7;
V8DBG v8dbg_type_JSAtomicsCondition__JS_ATOMICS_CONDITION_TYPE = 2097;
